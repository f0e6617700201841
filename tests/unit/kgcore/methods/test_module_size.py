"""Shape rules of issue 63: no module of the packages is longer than 500 lines (an engine holds
its paper's phases; what a method adds, and every other job, lives in a module of its own), and
FastToG is composed of parts, not inherited: its one base class is the common method base."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
PACKAGES = ("kgcore", "kgeval", "kglocal", "kgqa", "langchain_fasttog", "llamaindex_gretriever")
MAX_LINES = 500


def test_the_packages_are_where_the_test_looks() -> None:
    methods = ROOT / "kgcore" / "methods"
    modules = {p.relative_to(methods).as_posix() for p in methods.rglob("*.py")}
    assert {"fasttog/engine.py", "tog/engine.py", "cgpe/engine.py"} <= modules
    assert all((ROOT / package / "__init__.py").is_file() for package in PACKAGES)


def test_no_module_of_the_packages_is_over_500_lines() -> None:
    lengths = {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    over = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines: {over}"


def test_fasttog_derives_from_the_common_method_base_alone() -> None:
    from kgcore.methods.base import StepMethod
    from kgcore.methods.fasttog import FastToG

    assert [base.__name__ for base in FastToG.__bases__] == [StepMethod.__name__]
