"""Path ranking alone, no model: how often the relation paths a scorer ranks first reach a
gold answer, on dev questions (default 51-150) of WebQSP and CWQ.

For each question and scorer, the paths are listed and followed as FastToG's path planning
does (``kgcore.paths.reading.read_paths``); it prints, per dataset and scorer, the share of
questions whose first followed path reaches a gold answer (``top1``) and whose offered paths
(3) hold one (``offered``), with 95% intervals. Scorers: ``similarity`` (the training-free
default), ``trained`` (``models/path-scorer-webqsp``) or a scorer folder.

Usage::

    .venv/bin/python benchmarks/path_ranking.py --scorers similarity trained --count 100
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kgcore.embeddings import default_embedder
from kgcore.graph import InMemoryGraphStore
from kgcore.graph.compound import compound_view
from kgcore.paths import PathSettings
from kgcore.paths.learned import load_path_scorer
from kgcore.paths.ranking import path_scorer
from kgcore.paths.reading import read_paths
from kgcore.text.answer_forms import normalize_answer
from kgeval.datasets import load_dataset
from kgeval.metrics import wilson_interval


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scorers", nargs="+", default=["similarity", "trained"])
    parser.add_argument("--specs", nargs="+", default=["webqsp", "cwq"])
    parser.add_argument("--start", type=int, default=50, help="questions skipped (50: 51-)")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    embedder = default_embedder()
    cache: dict[str, object] = {}

    def embed(texts: list[str]) -> object:
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            cache.update(zip(missing, embedder.embed(missing), strict=True))
        return [cache[t] for t in texts]

    scorers = {
        name: path_scorer(embed, embed_caches=True)
        if name == "similarity"
        else load_path_scorer(name, embed)
        for name in args.scorers
    }
    figures: dict[str, dict[str, object]] = {}
    for spec in args.specs:
        data = load_dataset(spec)
        assert data.graph_path is not None
        store = compound_view(InMemoryGraphStore.from_file(data.graph_path))
        chosen = data.examples[args.start : args.start + args.count]
        for name, scorer in scorers.items():
            top1 = offered = 0
            for example in chosen:
                topic = [t for t in example.topic_entities if store.has_node(t)]
                gold = {normalize_answer(a) for a in example.answers}
                followed, _ = read_paths(store, example.question, topic, PathSettings(), scorer)
                hits = [any(normalize_answer(a) in gold for a in f.answers) for f in followed]
                top1 += bool(hits[:1] and hits[0])
                offered += any(hits)
            n = len(chosen)
            row = {"n": n, "top1": top1 / n, "offered": offered / n}
            row["top1_ci"] = wilson_interval(top1, n)
            row["offered_ci"] = wilson_interval(offered, n)
            figures[f"{spec}/{name}"] = row
            low, high = row["top1_ci"]
            olow, ohigh = row["offered_ci"]
            print(
                f"{spec:8} {name:22} n={n} top1={top1 / n:.2f} ({low:.2f}-{high:.2f}) "
                f"offered={offered / n:.2f} ({olow:.2f}-{ohigh:.2f})",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
