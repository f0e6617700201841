from __future__ import annotations

from collections.abc import Iterable

import pytest

from kgcore.community.sampling import sample_neighborhood
from kgcore.graph import InMemoryGraphStore


def tree_store(branching: int, depth: int) -> InMemoryGraphStore:
    """A rooted tree: node 'r', children 'r.0'..., every node `branching` children."""
    triples, frontier = [], ["r"]
    for _ in range(depth):
        nxt = []
        for node in frontier:
            for i in range(branching):
                child = f"{node}.{i}"
                triples.append((node, "child", child))
                nxt.append(child)
        frontier = nxt
    return InMemoryGraphStore.from_triples(triples)


class CountingStore(InMemoryGraphStore):
    def __init__(self, base: InMemoryGraphStore) -> None:
        super().__init__(base.graph)
        self.calls: list[str] = []

    def neighbors_batch(self, nodes: Iterable[str], limit: int | None = None):  # type: ignore[override]
        self.calls.append("neighbors_batch")
        return super().neighbors_batch(nodes, limit)

    def triples_among(self, nodes: Iterable[str]):  # type: ignore[override]
        self.calls.append("triples_among")
        return super().triples_among(nodes)


def test_same_seed_same_subgraph_other_seed_differs() -> None:
    store = tree_store(6, 3)
    kwargs = dict(radius=3, decay=0.5, max_nodes=10_000, max_neighbors_per_node=100)
    first = sample_neighborhood(store, ["r"], seed=7, **kwargs)
    again = sample_neighborhood(store, ["r"], seed=7, **kwargs)
    other = sample_neighborhood(store, ["r"], seed=8, **kwargs)
    assert first == again
    assert first.nodes != other.nodes


def test_hop_n_nodes_are_kept_with_probability_rho_to_the_n_minus_1() -> None:
    # 40 children per node: hop 1 has 40 nodes, each reached hop-2 node is drawn once.
    store = tree_store(40, 2)
    sub = sample_neighborhood(
        store, ["r"], radius=2, decay=0.3, max_nodes=100_000, max_neighbors_per_node=1_000, seed=1
    )
    hop1 = [n for n, h in sub.hops.items() if h == 1]
    hop2 = [n for n, h in sub.hops.items() if h == 2]
    assert len(hop1) == 40  # rho ** 0 = 1: every hop-1 node is kept
    share = len(hop2) / (40 * 40)
    assert share == pytest.approx(0.3, abs=0.04)


def test_caps_bound_the_subgraph() -> None:
    store = tree_store(50, 2)
    uncapped = sample_neighborhood(
        store, ["r"], radius=2, decay=1.0, max_nodes=1_000, max_neighbors_per_node=5, seed=0
    )
    # Root: its first 5 children; each child: 5 neighbours of which the first is the root.
    assert len(uncapped.nodes) == 1 + 5 + 5 * 4
    assert sum(1 for h in uncapped.hops.values() if h == 1) == 5
    capped = sample_neighborhood(
        store, ["r"], radius=2, decay=1.0, max_nodes=20, max_neighbors_per_node=5, seed=0
    )
    assert len(capped.nodes) == 20
    assert capped.nodes == uncapped.nodes[:20]


def test_triples_are_those_among_kept_nodes_and_round_trips_are_radius_plus_one() -> None:
    store = CountingStore(tree_store(3, 3))
    sub = sample_neighborhood(store, ["r"], radius=3, decay=1.0, seed=0)
    assert store.calls == ["neighbors_batch"] * 3 + ["triples_among"]
    kept = set(sub.nodes)
    assert len(sub.triples) == len(kept) - 1  # a tree
    assert all(t.head in kept and t.tail in kept for t in sub.triples)


def test_bad_parameters_are_refused() -> None:
    store = tree_store(2, 1)
    with pytest.raises(ValueError, match="decay"):
        sample_neighborhood(store, ["r"], decay=1.5)
    with pytest.raises(ValueError, match="radius"):
        sample_neighborhood(store, ["r"], radius=-1)
