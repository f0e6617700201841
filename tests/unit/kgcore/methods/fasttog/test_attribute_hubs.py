"""Attribute hubs do not glue chains together, on a MetaQA dev question where they did.

"the director of [Dead Presidents] also directed which films": with hubs expanded like any
node, the first search step offered ('1995', 'Frisk', 'Last of the Dogmen', 'Lord of
Illusions'): three films unrelated to the question, glued to the topic's release year, and a
chain that takes it drifts away from the director.
"""

from __future__ import annotations

from kgcore.graph import InMemoryGraphStore
from kgcore.methods.fasttog import FastToG, FastToGConfig

TOPIC = "Dead Presidents"


def _hub_glued(store: InMemoryGraphStore, config: FastToGConfig) -> list[tuple[str, ...]]:
    step = FastToG(store, config).search.step([TOPIC], {TOPIC}, depth=0, chain=0)
    return [
        c.nodes
        for c in step.candidates
        if len(c.nodes) > 1 and any(len(store.neighbors(n)) >= 100 for n in c.nodes)
    ]


def test_hub_values_do_not_merge_unrelated_films(metaqa_store: InMemoryGraphStore) -> None:
    assert _hub_glued(metaqa_store, FastToGConfig(hub_degree=None))  # the drift, reproduced
    assert _hub_glued(metaqa_store, FastToGConfig()) == []
    step = FastToG(metaqa_store, FastToGConfig()).search.step([TOPIC], {TOPIC}, depth=0, chain=0)
    assert {"1995", "Crime"} <= step.subgraph.hubs
    # The year is still offered (alone): it may be the answer to another question.
    offered = [c.nodes for c in step.candidates]
    assert ("1995",) in offered
    assert any("Allen Hughes" in nodes for nodes in offered)  # the director's community
    # Films reached only through the year are not sampled at all.
    assert "Frisk" not in step.subgraph.hops
