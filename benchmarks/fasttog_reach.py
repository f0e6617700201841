"""FastToG's retrieval ceiling on MetaQA dev, with no LLM.

For the dev questions of each hop (300 by default), with FastToG's default settings:

- ``subgraph``: share of questions whose gold answer is in the subgraph sampled by the first
  Local Community Search step around the topic entity;
- ``topk``: share whose gold answer is reachable through the coarse top-k candidates of that
  step that the first choice offers (:meth:`FastToG.first_options`): some candidate holds the
  answer or a node on a gold path (see below);
- ``oracle``: share whose gold answer lands in a chain's communities when an oracle, at every
  step up to D_max, picks the candidate that gets furthest along a gold path.

A gold path follows the question type's relations (``movie_to_director_to_movie`` is
``directed_by`` then ``directed_by`` back) from the topic entity to a gold answer, so a film
that merely shares a genre with the topic is not on it.

Usage::

    .venv/bin/python benchmarks/fasttog_reach.py [--limit 300] [--set decay=0.7 ...]

The last line reads ``fasttog_reach 2hop_subgraph=… 2hop_topk=… 2hop_oracle=…
3hop_subgraph=… 3hop_topk=… 3hop_oracle=…`` (one line).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from kgcore.graph import InMemoryGraphStore
from kgcore.linking import link_entity
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgeval.datasets import EvalExample, load_metaqa

#: The KB relation behind each non-movie word of a MetaQA question type.
RELATION = {
    "actor": "starred_actors",
    "director": "directed_by",
    "writer": "written_by",
    "year": "release_year",
    "language": "in_language",
    "genre": "has_genre",
    "tag": "has_tags",
    "tags": "has_tags",
}


def path_relations(question_type: str) -> list[str]:
    """``movie_to_director_to_movie`` -> ``["directed_by", "directed_by"]``."""
    words = question_type.split("_to_")
    relations = []
    for left, right in zip(words, words[1:], strict=False):
        other = right if left == "movie" else left
        relations.append(RELATION[other])
    return relations


def gold_positions(
    store: InMemoryGraphStore, topic: str, relations: Sequence[str], answers: set[str]
) -> dict[str, int]:
    """Node -> its position on some typed gold path (topic 0, answer ``len(relations)``)."""
    layers = [{topic}]
    for relation in relations:
        nxt = set()
        for node in layers[-1]:
            for triple in store.neighbors(node):
                if triple.relation == relation:
                    nxt.add(triple.other(node))
        layers.append(nxt)
    kept = layers[-1] & answers
    positions = {node: len(relations) for node in kept}
    for index in range(len(relations) - 1, 0, -1):  # keep only nodes that lead to an answer
        relation = relations[index]
        layer = set()
        for node in sorted(layers[index]):
            if any(t.relation == relation and t.other(node) in kept for t in store.neighbors(node)):
                layer.add(node)
        kept = layer
        for node in layer:
            positions.setdefault(node, index)
    return positions


def reach(
    store: InMemoryGraphStore, engine: FastToG, example: EvalExample
) -> tuple[bool, bool, bool]:
    """(gold in the first subgraph, gold reachable through the top-k, oracle chain found it)."""
    topic = link_entity(store, example.topic_entities[0])
    answers = {a for a in example.answers if store.has_node(a)}
    positions = gold_positions(store, topic, path_relations(example.meta["type"]), answers)
    goal = max(positions.values(), default=0)
    history = {topic}
    current = [topic]
    step = engine.search.step(current, history, depth=0, chain=0)
    in_subgraph = step.subgraph is not None and any(a in step.subgraph.hops for a in answers)
    # The first choice offers only the candidates that may start a chain.
    candidates = [step.candidates[i] for i in engine.start.first_options(step.candidates)]
    in_topk = any(positions.get(n, 0) >= 1 for c in candidates for n in c.nodes)
    progress = 0
    for depth in range(engine.config.max_depth):
        if depth:
            step = engine.search.step(current, history, depth=depth, chain=0)
            candidates = list(step.candidates)
        best = max(
            candidates,
            key=lambda c: max((positions.get(n, 0) for n in c.nodes), default=0),
            default=None,
        )
        reached = max((positions.get(n, 0) for n in best.nodes), default=0) if best else 0
        if best is None or reached <= progress:
            break
        if goal and reached == goal:
            return in_subgraph, in_topk, True
        progress = reached
        current = list(best.nodes)
        history.update(best.nodes)
    return in_subgraph, in_topk, False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=300, help="questions per hop")
    parser.add_argument("--hops", default="2hop,3hop")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="FastToGConfig override"
    )
    args = parser.parse_args(argv)
    overrides: dict[str, object] = {}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = type(getattr(FastToGConfig(), key))(value)
    config = FastToGConfig(**overrides)
    started = time.perf_counter()
    store = InMemoryGraphStore.from_file(load_metaqa("1hop", 1).graph_path, progress=False)
    engine = FastToG(store, config)
    print(f"graph loaded in {time.perf_counter() - started:.1f}s; config {config}", flush=True)
    figures: dict[str, float] = {}
    for hop in args.hops.split(","):
        examples = load_metaqa(hop, args.limit).examples
        t0 = time.perf_counter()
        rows = [reach(store, engine, e) for e in examples]
        n = len(rows)
        for index, name in enumerate(("subgraph", "topk", "oracle")):
            figures[f"{hop}_{name}"] = sum(r[index] for r in rows) / n
        print(
            f"{hop}: n={n} subgraph={figures[f'{hop}_subgraph']:.3f} "
            f"topk={figures[f'{hop}_topk']:.3f} oracle={figures[f'{hop}_oracle']:.3f} "
            f"({time.perf_counter() - t0:.1f}s)",
            flush=True,
        )
    print("fasttog_reach " + " ".join(f"{k}={v:.3f}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
