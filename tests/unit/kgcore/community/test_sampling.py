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
    kwargs = dict(radius=3, decay=0.5, max_nodes=10_000, neighbors_per_hop=(100,))
    first = sample_neighborhood(store, ["r"], seed=7, **kwargs)
    again = sample_neighborhood(store, ["r"], seed=7, **kwargs)
    other = sample_neighborhood(store, ["r"], seed=8, **kwargs)
    assert first == again
    assert first.nodes != other.nodes


def test_hop_n_nodes_are_kept_with_probability_rho_to_the_n_minus_1() -> None:
    # 40 children per node: hop 1 has 40 nodes, each reached hop-2 node is drawn once.
    store = tree_store(40, 2)
    sub = sample_neighborhood(
        store, ["r"], radius=2, decay=0.3, max_nodes=100_000, neighbors_per_hop=(1_000,), seed=1
    )
    hop1 = [n for n, h in sub.hops.items() if h == 1]
    hop2 = [n for n, h in sub.hops.items() if h == 2]
    assert len(hop1) == 40  # rho ** 0 = 1: every hop-1 node is kept
    share = len(hop2) / (40 * 40)
    assert share == pytest.approx(0.3, abs=0.04)


def test_per_hop_budgets_draw_20_then_10_neighbours_per_node_at_random() -> None:
    store = tree_store(30, 2)
    sub = sample_neighborhood(store, ["r"], radius=2, decay=1.0, max_nodes=10_000, seed=0)
    hop1 = [n for n, h in sub.hops.items() if h == 1]
    assert len(hop1) == 20  # the reference's 20 at hop 1
    for child in hop1:  # and 10 of each hop-1 node's 30 children at hop 2
        assert sum(1 for n, h in sub.hops.items() if h == 2 and n.startswith(child + ".")) == 10
    # Random, not the first 20 in the store's (alphabetical) order, and seeded.
    canonical = [t.other("r") for t in store.neighbors("r")][:20]
    assert sorted(hop1) != sorted(canonical)
    again = sample_neighborhood(store, ["r"], radius=2, decay=1.0, max_nodes=10_000, seed=0)
    other = sample_neighborhood(store, ["r"], radius=2, decay=1.0, max_nodes=10_000, seed=1)
    assert again == sub and set(other.nodes) != set(sub.nodes)


def test_the_node_budget_is_shared_fairly_across_the_frontier() -> None:
    # Root with 3 children, each with 50 children; room for only 9 nodes at hop 2.
    store = tree_store(3, 1)
    store.add_triples([(f"r.{i}", "child", f"r.{i}.{j:02d}") for i in range(3) for j in range(50)])
    sub = sample_neighborhood(store, ["r"], radius=2, decay=1.0, max_nodes=1 + 3 + 9, seed=0)
    assert len(sub.nodes) == 13
    for i in range(3):  # first come first served would give r.0 all 9
        assert sum(1 for n in sub.nodes if n.startswith(f"r.{i}.")) == 3


def test_read_cap_bounds_the_neighbours_read_per_node() -> None:
    store = tree_store(50, 1)
    sub = sample_neighborhood(store, ["r"], radius=1, max_neighbors_per_node=5, seed=0)
    canonical = [t.other("r") for t in store.neighbors("r")][:5]
    assert sorted(sub.nodes) == sorted(["r", *canonical])


def test_hubs_are_kept_but_not_expanded_and_stay_apart_in_detection() -> None:
    # "Heat" and "Ronin" share a director and a release year; 300 other films share the year.
    triples = [
        ("Heat", "directed_by", "Michael Mann"),
        ("Collateral", "directed_by", "Michael Mann"),
        ("Heat", "release_year", "1995"),
        ("Ronin", "release_year", "1995"),
        ("Ronin", "starred_actors", "Robert De Niro"),
        ("Heat", "starred_actors", "Robert De Niro"),
    ] + [(f"film{i:03d}", "release_year", "1995") for i in range(300)]
    store = InMemoryGraphStore.from_triples(triples)
    sub = sample_neighborhood(store, ["Heat"], radius=2, decay=1.0, hub_degree=100, seed=0)
    assert sub.hubs == frozenset({"1995"})
    assert "1995" in sub.nodes  # still there: it may be the answer
    assert not any(n.startswith("film") for n in sub.nodes)  # not a bridge to 300 films
    assert {"Collateral", "Ronin"} <= set(sub.nodes)  # reached through real links
    graph = sub.to_networkx(exclude=["Heat"])
    assert graph.degree("1995") == 0  # "1995" cannot glue "Ronin" to anything
    open_sub = sample_neighborhood(store, ["Heat"], radius=2, decay=1.0, seed=0)
    # The hop-2 budget: 10 draws from "1995" (one may be "Ronin", reached anyway).
    assert sum(n.startswith("film") for n in open_sub.nodes) in (9, 10)


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
    with pytest.raises(ValueError, match="neighbors_per_hop"):
        sample_neighborhood(store, ["r"], neighbors_per_hop=(20, 0))
