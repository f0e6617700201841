"""FastToG replayed on the cross-graph report's traces: the same answers and call counts?

Every FastToG trace of the cross-graph report (``benchmarks/results/kgqa_dev/fasttog__*.jsonl``:
MetaQA 2-hop and 3-hop, PathQuestion PQ-3H and PQL-3H, WebQSP, CWQ; the first 50 of each)
holds the raw reply of every model call. Each question is run again through the evaluation
harness (``evaluate``, as ``kgqa eval`` runs it) with a scripted model that answers a request
with the next recorded reply of the question its prompt asks (an empty reply once they run
out). Per question the replay keeps the answer and the number of calls.

``--write-baseline`` stores them (``benchmarks/results/fasttog_trace_replay.json``); a later run
compares against that file and prints the questions whose answer or call count changed. A
refactor that changes no behaviour keeps the count at 0. The count of replays that differ
from the recording itself is printed too (settings and prompts changed since some traces were
recorded; the baseline, not the recording, is what a refactor must keep).

Last line: ``fasttog_trace_replay n=... differ_from_baseline=... differ_from_recording=...``.

Example
-------
``.venv/bin/python benchmarks/fasttog_trace_replay.py --write-baseline`` (before a change),
``.venv/bin/python benchmarks/fasttog_trace_replay.py`` (after it).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kgcore.llm import LLMRequest, ScriptedLLM  # noqa: E402
from kgeval.datasets import load_datasets  # noqa: E402
from kgeval.harness import evaluate  # noqa: E402

TRACES = ROOT / "benchmarks" / "results" / "kgqa_dev"
BASELINE = ROOT / "benchmarks" / "results" / "fasttog_trace_replay.json"


def recorded_replies(rows: list[dict[str, Any]]) -> ScriptedLLM:
    """A model replying to each question's requests with that question's recorded replies."""
    queues = {
        row["question"]: [step["reply"] for step in row["extra"]["steps"] if "reply" in step]
        for row in rows
    }
    by_length = sorted(queues, key=len, reverse=True)  # the longest question the prompt holds

    def reply(request: LLMRequest) -> str:
        prompt = request.prompt_text
        question = next((q for q in by_length if q in prompt), None)
        queue = queues.get(question) if question is not None else None
        return queue.pop(0) if queue else ""

    return ScriptedLLM(reply)


def replay(limit: int) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """The replayed and the recorded ``[answer, calls, error]`` of every traced question, by id."""
    replayed: dict[str, list[Any]] = {}
    recorded: dict[str, list[Any]] = {}
    for dataset in load_datasets(f"all:{limit}"):
        path = TRACES / f"fasttog__{dataset.name}.jsonl"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        rows = [r for r in rows if not r.get("error")]
        ids = {r["id"] for r in rows}
        dataset = replace(dataset, examples=[e for e in dataset.examples if e.id in ids])
        options = rows[0]["options"] if rows else {}
        with tempfile.TemporaryDirectory() as out:
            run = evaluate(
                "fasttog", dataset, recorded_replies(rows), options=options, out_dir=out,
                progress=False, plots=False, fail_fast=0,
            )  # fmt: skip
        for record in run.records:
            key = f"{dataset.name}/{record['id']}"
            replayed[key] = [record.get("prediction"), record.get("llm_calls"), record.get("error")]
        for row in rows:
            recorded[f"{dataset.name}/{row['id']}"] = [row["prediction"], row["llm_calls"], None]
        print(f"{dataset.name}: {len(rows)} questions replayed", flush=True)
    return replayed, recorded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=50, help="questions per dataset")
    parser.add_argument("--baseline", type=Path, default=BASELINE)
    parser.add_argument("--write-baseline", action="store_true")
    args = parser.parse_args(argv)
    replayed, recorded = replay(args.limit)
    if args.write_baseline:
        args.baseline.write_text(json.dumps(replayed, indent=0, sort_keys=True) + "\n")
    baseline = json.loads(args.baseline.read_text(encoding="utf-8"))
    changed = sorted(k for k in set(baseline) | set(replayed) if baseline.get(k) != replayed.get(k))
    for key in changed:
        print(f"changed {key}: baseline {baseline.get(key)} now {replayed.get(key)}")
    off = sum(replayed.get(k) != v for k, v in recorded.items())
    print(
        f"fasttog_trace_replay n={len(replayed)} differ_from_baseline={len(changed)} "
        f"differ_from_recording={off}"
    )
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
