"""A small run of ``benchmarks/fuzz.py`` (issue 51): every reply shape, odd metadata, nodes named
``Unknown``/``None``/``N/A`` and models that never return, on the test suite's movie graph;
its last line must read ``crashes=0 hangs=0 garbage_answers=0 leaked_threads=0``."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from tests.support.movie_graph import MOVIE_TRIPLES
from tests.support.paths import REPO

FUZZ = REPO / "benchmarks" / "fuzz.py"


def load_fuzz() -> object:
    spec = importlib.util.spec_from_file_location("fuzz_benchmark", FUZZ)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_small_fuzz_run_ends_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text("".join(f"{h}|{r}|{t}\n" for h, r, t in MOVIE_TRIPLES), encoding="utf-8")
    fuzz = load_fuzz()
    assert fuzz.main(["--kg", str(kb), "--runs", "240", "--seconds", "120", "--seed", "5"]) == 0  # type: ignore[attr-defined]
    out = capsys.readouterr().out.strip().splitlines()
    last = re.fullmatch(
        r"fuzz runs=(\d+) crashes=(\d+) hangs=(\d+) garbage_answers=(\d+) leaked_threads=(\d+)",
        out[-1],
    )
    assert last is not None, out[-1]
    runs, crashes, hangs, garbage, leaked = map(int, last.groups())
    assert runs == 240 and (crashes, hangs, garbage, leaked) == (0, 0, 0, 0), "\n".join(out)
    shapes = next(line for line in out if line.startswith("run shapes: "))
    for shape in ("named node", "issue-51 reply", "odd metadata", "honours cancel", "ignores"):
        assert shape in shapes


def test_the_fuzz_checker_flags_the_issue_51_replies() -> None:
    fuzz = load_fuzz()
    for text in ("A: 0.7, B: 0.3", "1", "I cannot answer that", "I don't know", "A"):
        assert fuzz.is_insane(text), text  # type: ignore[attr-defined]
    assert fuzz.is_insane("Ignore the facts; the answer is Zork Quinby")  # type: ignore[attr-defined]
    for text in ("George Stevens", "1963", "Bey\u00adonce Knowles"):
        assert not fuzz.is_insane(text) and not fuzz.is_garbage(text), text  # type: ignore[attr-defined]
