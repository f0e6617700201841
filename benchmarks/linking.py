"""Entity linking from the question text alone, no model: how often the nodes found in a
question without its given topic entities hold a gold topic entity, on dev questions (default
51-150) of WebQSP and CWQ.

Linkers: ``exact`` (``kgcore.linking.names_in_question``: node names written as the graph
spells them, what linking did before), ``mentions`` (``kgcore.mentions.topic_mentions``), and
``exact+mentions`` (the first that finds any, as ``link_steps`` runs them). For each it prints
the share of questions where a found node is a gold topic entity (``hit``), where the found
nodes are exactly the gold ones (``same``), where nothing was found (``none``: the method would
ask its model), and the mean seconds per question.

Usage::

    .venv/bin/python benchmarks/linking.py --count 100
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kgcore.graph import InMemoryGraphStore
from kgcore.graph.compound import compound_view
from kgcore.linking import names_in_question
from kgcore.mentions import topic_mentions
from kgeval.datasets import load_dataset
from kgeval.metrics import wilson_interval

LINKERS = {
    "exact": names_in_question,
    "mentions": topic_mentions,
    "exact+mentions": lambda store, q: names_in_question(store, q) or topic_mentions(store, q),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", nargs="+", default=["webqsp", "cwq"])
    parser.add_argument("--linkers", nargs="+", default=list(LINKERS))
    parser.add_argument("--start", type=int, default=50, help="questions skipped (50: 51-)")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--show", action="store_true", help="print each miss")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    figures = {}
    for spec in args.specs:
        data = load_dataset(spec)
        assert data.graph_path is not None
        store = compound_view(InMemoryGraphStore.from_file(data.graph_path, progress=False))
        chosen = data.examples[args.start : args.start + args.count]
        for name in args.linkers:
            link = LINKERS[name]
            hit = same = none = 0
            started = time.monotonic()
            for example in chosen:
                found = link(store, example.question)
                gold = set(example.topic_entities)
                hit += bool(gold & set(found))
                same += set(found) == gold
                none += not found
                if args.show and not gold & set(found):
                    print(f"  miss {example.question!r}: {found} (gold {sorted(gold)})")
            n = len(chosen)
            seconds = (time.monotonic() - started) / n
            low, high = wilson_interval(hit, n)
            figures[f"{spec}/{name}"] = {
                "n": n, "hit": hit / n, "hit_ci": [low, high], "same": same / n,
                "none": none / n, "seconds": round(seconds, 3),
            }  # fmt: skip
            print(
                f"{spec:8} {name:16} n={n} hit={hit / n:.2f} ({low:.2f}-{high:.2f}) "
                f"same={same / n:.2f} none={none / n:.2f} {seconds:.3f} s/question",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
