"""The evaluation harness: datasets, metrics, method registry, traces, reports.

Methods do not import this package (answer normalisation lives in
:mod:`kgcore.text.answer_forms`), so its exports are imported eagerly.

Example
-------
>>> from kgeval import hit_at_1
>>> hit_at_1("{Paris}", ["paris"])
True
"""

from kgeval.datasets import (
    Dataset,
    EvalExample,
    load_cwq,
    load_dataset,
    load_datasets,
    load_explagraphs,
    load_jsonl,
    load_metaqa,
    load_pathquestion,
    load_webqsp,
)
from kgeval.harness import EvalRun, evaluate
from kgeval.metrics import answer_recall, hit_at_1, normalize_answer
from kgeval.registry import METHODS, make_method, method_names
from kgeval.report import summarize, write_report
from kgeval.traces import read_traces

__all__ = [
    "METHODS",
    "Dataset",
    "EvalExample",
    "EvalRun",
    "answer_recall",
    "evaluate",
    "hit_at_1",
    "load_cwq",
    "load_dataset",
    "load_datasets",
    "load_explagraphs",
    "load_jsonl",
    "load_metaqa",
    "load_pathquestion",
    "load_webqsp",
    "make_method",
    "method_names",
    "normalize_answer",
    "read_traces",
    "summarize",
    "write_report",
]
