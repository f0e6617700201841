"""The committed cross-graph report traces (issue 34): no answer is an unnamed Freebase node.

Every method's WebQSP and CWQ dev traces under ``benchmarks/results/kgqa_dev/`` are read; a
prediction, or any name of it, that is an unnamed compound node (``m.0w4dx1v``) would be raw
graph ids shown to the model or returned by it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgcore.graph.compound import is_unnamed_node
from tests.support.paths import REPO

TRACES = REPO / "benchmarks" / "results" / "kgqa_dev"
FREEBASE = sorted([*TRACES.glob("*__webqsp.jsonl"), *TRACES.glob("*__cwq.jsonl")])


def test_the_report_has_freebase_traces() -> None:
    if not TRACES.is_dir():
        pytest.skip("the cross-graph report has not been run in this checkout")
    methods = {path.name.split("__")[0] for path in FREEBASE}
    assert {"fasttog", "tog", "io"} <= methods


@pytest.mark.parametrize("path", FREEBASE, ids=lambda p: p.name)
def test_no_answer_is_an_unnamed_node(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert rows
    for row in rows:
        names = [part.strip() for part in str(row.get("prediction", "")).split(";")]
        assert not any(is_unnamed_node(name) for name in names), (row["id"], row["prediction"])
        # Nor does the context the graph methods showed name one as a fact's end.
        context = str(row.get("context") or "")
        assert not any(is_unnamed_node(word.strip("().,;")) for word in context.split())
