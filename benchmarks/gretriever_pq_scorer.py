"""The trained G-Retriever (node scorer) against inference-only G-Retriever on PathQuestion.

Reads ``kgqa eval`` records (scored as the cross-graph report scores them,
:func:`kgeval.report.summarize`) and writes a text report: per graph, hit@1 with n
and its Wilson 95 % interval for the trained method on intact and shuffled subgraphs and for
inference-only G-Retriever (its committed records of the first 50 dev questions), the questions
the trained method gains and loses against it, and last one line per graph::

    pqscorer PQ-3H intact=0.82 shuffled=0.30 inference_only=0.32 n=50

Example
-------
.. code-block:: console

    $ python benchmarks/gretriever_pq_scorer.py --first benchmarks/results/kgqa_dev \\
          --deciding benchmarks/results/gretriever_pq_scorer_dev51-150 \\
          --out benchmarks/results/gretriever_pq_scorer.txt
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kgeval.report import load_runs, loops_back, score_record, summarize

SETS = ("PQ-3H", "PQL-3H")
TRAINED = "gretriever-gnn"
BASELINE = "gretriever"


def _runs(folder: Path, dataset: str) -> dict[str, list[dict[str, Any]]]:
    """The runs of ``dataset`` in ``folder``: ``intact``, ``shuffled``, ``inference_only``."""
    found: dict[str, list[dict[str, Any]]] = {}
    for (label, name), records in load_runs(folder).items():
        if name != f"pathquestion-{dataset}":
            continue
        if label == BASELINE:
            found["inference_only"] = records
        elif label.startswith(f"{TRAINED}[") and "checkpoint=" in label:
            found["shuffled" if "subgraph=shuffled" in label else "intact"] = records
    return found


def _line(name: str, records: list[dict[str, Any]]) -> str:
    """hit@1 with n and interval; for a set with loop-back questions (a gold answer is the
    topic entity), the same without them (``gold≠topic``)."""
    s = summarize(records)
    low, high = s["hit@1_ci"]
    line = (
        f"  {name:<15} n={s['n']:<4} hit@1={s['hit@1']:.2f} (95% {low:.2f}-{high:.2f}) "
        f"LLM calls/q={s['llm_calls']:.1f}"
    )
    others = [r for r in records if not loops_back(r)]
    if 0 < len(others) < len(records):
        o = summarize(others)
        line += f"; gold≠topic n={o['n']} hit@1={o['hit@1']:.2f}"
        line += " (95% {:.2f}-{:.2f})".format(*o["hit@1_ci"])
    return line


def _paired(trained: list[dict[str, Any]], baseline: list[dict[str, Any]]) -> str:
    ours = {r["id"]: score_record(r).hit for r in trained}
    theirs = {r["id"]: score_record(r).hit for r in baseline}
    common = sorted(set(ours) & set(theirs))
    gained = sum(ours[i] and not theirs[i] for i in common)
    lost = sum(theirs[i] and not ours[i] for i in common)
    return f"  paired on {len(common)} questions: {gained} gained, {lost} lost"


def report(first: Path, deciding: Path | None) -> list[str]:
    """The report's lines."""
    lines = ["Trained G-Retriever (answer-node scorer) on PathQuestion dev", ""]
    last: list[str] = []
    for dataset in SETS:
        if deciding is not None:
            runs = _runs(deciding, dataset)
            lines.append(f"{dataset}, dev questions 51-150 (deciding)")
            lines += [_line(k, runs[k]) for k in ("intact", "shuffled") if k in runs]
        runs = _runs(first, dataset)
        lines.append(f"{dataset}, first 50 dev questions (reported)")
        lines += [_line(k, runs[k]) for k in ("intact", "shuffled", "inference_only") if k in runs]
        if "intact" in runs and "inference_only" in runs:
            lines.append(_paired(runs["intact"], runs["inference_only"]))
        lines.append("")
        figures = {k: summarize(v) for k, v in runs.items()}
        if {"intact", "shuffled", "inference_only"} <= set(figures):
            last.append(
                f"pqscorer {dataset} intact={figures['intact']['hit@1']:.2f} "
                f"shuffled={figures['shuffled']['hit@1']:.2f} "
                f"inference_only={figures['inference_only']['hit@1']:.2f} "
                f"n={figures['intact']['n']}"
            )
    return lines + last


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first", type=Path, default=Path("benchmarks/results/kgqa_dev"))
    parser.add_argument("--deciding", type=Path, help="records of dev questions 51-150")
    parser.add_argument("--out", type=Path, help="text file (default: print)")
    args = parser.parse_args(argv)
    text = "\n".join(report(args.first, args.deciding)) + "\n"
    if args.out:
        args.out.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
