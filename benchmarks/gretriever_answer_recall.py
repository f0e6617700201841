"""Benchmark: G-Retriever's answer recall, the question-aware default against the paper's
retrieval, on the six graphs of the cross-graph report, with no model call.

For each question the topic entities are linked as ``kgqa eval`` links them, the subgraph is
retrieved and written into the prompt's context as G-Retriever's answer step writes it
(``fit_context``: the 2,048-token budget), and the question counts as recalled when a gold
answer is in that text (:func:`kgeval.metrics.answer_recall`, the report's ``answer recall``).
Questions ``--start`` to ``--start + --count`` of each dev set (default 51-100, the tuning
questions). Last line: ``gretriever_answer_recall default=<r> paper=<r> n=<n>``.

Usage: ``.venv/bin/python benchmarks/gretriever_answer_recall.py [--start 50 --count 50]``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from kgcore.builder import build_method
from kgcore.exceptions import EntityNotFoundError
from kgcore.graph import open_store
from kgcore.linking import link_entities
from kgeval.datasets import CROSS_GRAPH_SPECS, load_dataset
from kgeval.metrics import answer_recall

ROOT = Path(__file__).resolve().parent.parent


def recalled(engine: object, question: str, topics: list[str], answers: list[str]) -> bool:
    retriever = engine.retriever  # type: ignore[attr-defined]
    try:
        seeds = link_entities(engine.store, topics) if topics else []  # type: ignore[attr-defined]
    except EntityNotFoundError:
        seeds = []
    retrieved = retriever.retrieve(question, topic_entities=seeds or None)
    context, _ = engine.fit_context(retrieved)  # type: ignore[attr-defined]
    return bool(answer_recall(context, answers))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--start", type=int, default=50)
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--specs", nargs="+", default=list(CROSS_GRAPH_SPECS))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rows: dict[str, dict[str, float]] = {}
    totals = {"default": 0, "paper": 0}
    n = 0
    for spec in args.specs:
        data = load_dataset(spec)
        examples = data.examples[args.start : args.start + args.count]
        store = open_store(str(data.graph_path), progress=False)
        engines = {
            "default": build_method("gretriever", store),
            "paper": build_method("gretriever", store, preset="paper"),
        }
        found = {name: 0 for name in engines}
        started = time.perf_counter()
        for example in examples:
            for name, engine in engines.items():
                found[name] += recalled(
                    engine, example.question, list(example.topic_entities), list(example.answers)
                )
        rows[data.name] = {k: round(v / len(examples), 3) for k, v in found.items()}
        rows[data.name]["seconds"] = round(time.perf_counter() - started, 1)
        print(data.name, len(examples), json.dumps(rows[data.name]), flush=True)
        for name in totals:
            totals[name] += found[name]
        n += len(examples)
    if args.out:
        args.out.write_text(json.dumps({"start": args.start, "rows": rows}, indent=2) + "\n")
    print(
        f"gretriever_answer_recall default={totals['default'] / n:.3f} "
        f"paper={totals['paper'] / n:.3f} n={n}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
