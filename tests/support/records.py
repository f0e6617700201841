"""Trace records for tests that write trace files by hand: every field a record needs
(:data:`kgeval.records.REQUIRED_FIELDS`), the test's own fields over them."""

from __future__ import annotations

from typing import Any


def trace_record(identifier: str, run: str = "io", dataset: str = "d", **fields: Any) -> dict:
    """A complete trace record of question ``identifier`` (gold answer ``x``; a hit predicts
    ``x``, a miss nothing), with ``fields`` set.

    >>> trace_record("q1", hit=True)["prediction"], trace_record("q1", "tog")["method"]
    ('x', 'tog')
    """
    hit = bool(fields.get("hit", False))
    record: dict[str, Any] = {
        "id": identifier,
        "dataset": dataset,
        "method": run.split("[")[0],
        "run": run,
        "question": f"question {identifier}?",
        "answers": ["x"],
        "prediction": "x" if hit else "",
        "hit": hit,
    }
    record.update(fields)
    return record
