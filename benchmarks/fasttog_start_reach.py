"""How often a gold answer is among the facts of FastToG's first reasoning step, with no LLM.

With an embedding model (``kgqa``'s offline all-MiniLM-L6-v2), FastToG chooses its first
communities by similarity, so everything its first reasoning step shows is fixed before any LLM
call: the start community (with ``topic_facts``, the facts of the topic entities closest to
the question) and the first community of each chain. This script runs FastToG with a scripted
model that replies ``{Unknown}``, stops at depth 1, and counts the questions whose gold answer
(any of them, on word boundaries, case-folded) is in those facts. It measures what a change to
the retrieval gives the model to read, on any dataset, in seconds; the model's hit@1 is measured
by ``kgqa eval``.

Usage::

    .venv/bin/python benchmarks/fasttog_start_reach.py [--data webqsp,cwq] [--start 50]
        [--stop 150] [--set topic_facts=0 ...]

Last line: ``fasttog_start_reach <dataset>=<found>/<n> ...`` (one line).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMRequest, ScriptedLLM
from kgeval.datasets import Dataset, load_dataset
from kgeval.registry import make_method
from kgqa.eval import parse_option

DEFAULT_DATA = (
    "webqsp,cwq,metaqa:1hop,metaqa:2hop,metaqa:3hop,pathquestion:PQ-3H,pathquestion:PQL-3H"
)


def reach_arguments(description: str) -> argparse.ArgumentParser:
    """The options the reach scripts share: ``--data``, ``--start``, ``--stop``, ``--set``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", default=DEFAULT_DATA, help="comma-separated dataset specs")
    parser.add_argument("--start", type=int, default=50, help="first question (0-based)")
    parser.add_argument("--stop", type=int, default=150, help="question after the last")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    return parser


def set_options(items: Sequence[str]) -> dict[str, object]:
    """``--set KEY=VALUE`` items as FastToG options, read as ``kgqa eval --set`` reads them."""
    return dict(parse_option(item) for item in items)


def fasttog_engines(specs: str, options: dict[str, object]) -> Iterator[tuple[Dataset, Any]]:
    """Each dataset of the comma-separated ``specs`` with a FastToG engine over its graph, as
    ``kgqa`` builds it with ``options`` (one in-memory store per graph file)."""
    stores: dict[str, InMemoryGraphStore] = {}
    for spec in specs.split(","):
        dataset = load_dataset(spec)
        if dataset.graph_path is None:
            raise SystemExit(f"{spec}: no shared graph file")
        key = str(dataset.graph_path)
        if key not in stores:
            stores[key] = InMemoryGraphStore.from_file(dataset.graph_path, progress=False)
        yield dataset, make_method("fasttog", stores[key], **options)


def first_facts(requests: Sequence[LLMRequest]) -> str:
    """The facts of the first reasoning request ('' when there was none)."""
    reasoning = [r for r in requests if r.purpose == "reason"]
    return reasoning[0].messages[-1].content if reasoning else ""


def names_any(facts: str, answers: Sequence[str]) -> bool:
    """Whether ``facts`` names one of ``answers`` on word boundaries, case-folded."""
    folded = facts.casefold()
    return any(
        re.search(r"(?<!\w)" + re.escape(answer.casefold()) + r"(?!\w)", folded)
        for answer in answers
    )


def main(argv: list[str] | None = None) -> int:
    args = reach_arguments(__doc__.splitlines()[0]).parse_args(argv)
    options = set_options(args.set)
    options["max_depth"] = 1
    figures = []
    for dataset, engine in fasttog_engines(args.data, options):
        examples = dataset.examples[args.start : args.stop]
        found = words = 0
        for example in examples:
            llm = ScriptedLLM(lambda request: "{Unknown}")
            engine.run(example.question, llm, topic_entities=list(example.topic_entities) or None)
            facts = first_facts(llm.requests)
            found += names_any(facts, example.answers)
            words += len(facts.split())
        n = len(examples)
        print(
            f"{dataset.name} questions {args.start + 1}-{args.start + n}: gold in the first "
            f"facts {found}/{n}, {words / max(n, 1):.0f} words",
            flush=True,
        )
        figures.append(f"{dataset.name}={found}/{n}")
    print("fasttog_start_reach " + " ".join(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
