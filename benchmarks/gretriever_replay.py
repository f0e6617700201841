"""Replay G-Retriever traces through the current code with their recorded replies.

Each record's answer step (``extra["steps"]``: the reader's reply, and its retry) is given back
by a scripted model, so the retrieval runs anew (it is deterministic) and only what the code
does with the same replies can change. Prints, per dataset and over all, hit@1 of the
recorded answers and of the replayed ones, the questions won and lost, how many replayed
answers came from the planned path (``answered_by_path``), how many others changed (0 when
the replay repeats the recorded run; an answer followed by the path's other answers counts as
unchanged), and answer F1 before and after. A change made after the reply
(how an answer is read, grounded or completed) is measured this way without a model.

Example
-------
``.venv/bin/python benchmarks/gretriever_replay.py --traces DIR [--count 50]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kgcore.builder import build_method  # noqa: E402
from kgcore.graph import InMemoryGraphStore  # noqa: E402
from kgcore.llm import ScriptedLLM  # noqa: E402
from kgeval.datasets import load_dataset  # noqa: E402
from kgeval.metrics import answer_f1, scored_hit, wilson_interval  # noqa: E402

SPECS = {
    "metaqa-2hop": "metaqa:2hop", "metaqa-3hop": "metaqa:3hop",
    "pathquestion-PQ-3H": "pathquestion:PQ-3H", "pathquestion-PQL-3H": "pathquestion:PQL-3H",
    "webqsp": "webqsp", "cwq": "cwq",
}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, required=True, help="folder of gretriever__*.jsonl")
    parser.add_argument("--count", type=int, default=None, help="the first COUNT records")
    args = parser.parse_args(argv)
    keys = ("n", "before", "after", "won", "lost", "by_path", "other_changes")
    keys += ("f1_before", "f1_after")
    total: dict[str, float] = dict.fromkeys(keys, 0)
    stores: dict[str, InMemoryGraphStore] = {}
    for name, spec in SPECS.items():
        trace = args.traces / f"gretriever__{name}.jsonl"
        if not trace.exists():
            continue
        records = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
        records = records[: args.count]
        dataset = load_dataset(spec)
        key = str(dataset.graph_path)
        if key not in stores:
            stores[key] = InMemoryGraphStore.from_file(dataset.graph_path, progress=False)
        engine = build_method("gretriever", stores[key])
        row = dict.fromkeys(total, 0)
        for record in records:
            replies = [step["reply"] for step in record["extra"]["steps"]]
            result = engine.run(
                record["question"], ScriptedLLM(replies), topic_entities=record["topic_entities"]
            )
            before = bool(record["hit"])
            topics = record["topic_entities"]
            after = scored_hit(str(result.answer), record["answers"], topics, result.answered)
            row["n"] += 1
            row["before"] += before
            row["after"] += after
            row["won"] += after and not before
            row["lost"] += before and not after
            by_path = bool(result.extra.get("answered_by_path"))
            row["by_path"] += by_path
            # An answer that changed without the path: the replay is not what was recorded.
            row["other_changes"] += not by_path and not _completes(result, record)
            gold = record["answers"]
            row["f1_before"] += answer_f1(record["prediction"], gold, record["answered"])
            row["f1_after"] += answer_f1(str(result.answer), record["answers"], result.answered)
        for k in total:
            total[k] += row[k]
        print(name, json.dumps({k: round(v, 2) for k, v in row.items()}), flush=True)
    n = total["n"] or 1
    for label in ("before", "after"):
        low, high = wilson_interval(total[label], n)
        print(f"{label}: hit@1 {total[label] / n:.3f} [{low:.2f}, {high:.2f}] n={total['n']}")
    print(f"F1: {total['f1_before'] / n:.3f} -> {total['f1_after'] / n:.3f}")
    print(json.dumps({k: round(v, 2) for k, v in total.items()}))
    return 0


def _completes(result: object, record: dict) -> bool:
    """Whether the replayed answer is the recorded one, or starts with it (the path's other
    answers following the node the reply named)."""
    answer, recorded = str(getattr(result, "answer", "")), str(record["prediction"])
    return answer == recorded or answer.startswith(recorded + "; ")


if __name__ == "__main__":
    raise SystemExit(main())
