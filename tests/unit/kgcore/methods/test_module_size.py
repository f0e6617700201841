"""No module under ``kgcore/methods`` is longer than 600 lines (issue 49): an engine holds its
paper's phases, and what a method adds lives in modules of its own."""

from __future__ import annotations

from pathlib import Path

METHODS = Path(__file__).resolve().parents[4] / "kgcore" / "methods"
MAX_LINES = 600


def test_the_methods_package_is_where_the_test_looks() -> None:
    modules = {p.relative_to(METHODS).as_posix() for p in METHODS.rglob("*.py")}
    assert {"fasttog/engine.py", "tog/engine.py", "cgpe/engine.py"} <= modules


def test_no_methods_module_is_over_600_lines() -> None:
    lengths = {
        path.relative_to(METHODS).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(METHODS.rglob("*.py"))
    }
    over = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines: {over}"
