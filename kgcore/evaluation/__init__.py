"""The evaluation harness: datasets, metrics, method registry, traces, reports.

Imports are lazy so that methods may use :mod:`kgcore.evaluation.metrics` without a cycle.

Example
-------
>>> from kgcore.evaluation import hit_at_1
>>> hit_at_1("{Paris}", ["paris"])
True
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "normalize_answer": "kgcore.evaluation.metrics",
    "hit_at_1": "kgcore.evaluation.metrics",
    "answer_recall": "kgcore.evaluation.metrics",
    "EvalExample": "kgcore.evaluation.datasets",
    "Dataset": "kgcore.evaluation.datasets",
    "load_dataset": "kgcore.evaluation.datasets",
    "load_metaqa": "kgcore.evaluation.datasets",
    "load_explagraphs": "kgcore.evaluation.datasets",
    "load_jsonl": "kgcore.evaluation.datasets",
    "METHODS": "kgcore.evaluation.registry",
    "make_method": "kgcore.evaluation.registry",
    "method_names": "kgcore.evaluation.registry",
    "evaluate": "kgcore.evaluation.harness",
    "EvalRun": "kgcore.evaluation.harness",
    "read_traces": "kgcore.evaluation.traces",
    "summarize": "kgcore.evaluation.report",
    "write_report": "kgcore.evaluation.report",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kgcore.evaluation' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
