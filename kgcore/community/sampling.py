"""n-hop neighbourhoods with exponential-decay sampling (FastToG, Local Community Search).

A node first reached at hop ``n`` is kept with probability ``decay ** (n - 1)``: hop-1
neighbours are always kept, hop-2 ones with probability ``decay``, and so on. Two caps keep hubs
(a year or a language linked to thousands of films) tractable: at most ``max_neighbors_per_node``
neighbours are read per node, in the store's canonical order, and at most ``max_nodes`` nodes
are kept. Random draws come from a seeded generator, in a fixed order, so a run repeats exactly
and every store gives the same subgraph.

The store is asked once per hop for the whole frontier, then once for the triples among the kept
nodes: ``radius + 1`` round trips.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("a", "r", "b"), ("b", "r", "c")])
>>> sub = sample_neighborhood(store, ["a"], radius=2, decay=1.0, seed=0)
>>> sorted(sub.nodes), sub.hops["c"]
(['a', 'b', 'c'], 2)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import networkx as nx
import numpy as np

from kgcore.graph.store import GraphStore
from kgcore.types import Triple


@dataclass(frozen=True)
class SampledSubgraph:
    """Kept nodes (in discovery order), their hop distance, and the triples among them."""

    nodes: tuple[str, ...]
    hops: dict[str, int]
    triples: tuple[Triple, ...]

    def to_networkx(self, exclude: Iterable[str] = ()) -> nx.Graph:
        """Undirected simple graph for community detection; weight = relations between a pair."""
        skip = set(exclude)
        graph = nx.Graph()
        graph.add_nodes_from(n for n in self.nodes if n not in skip)
        for head, _, tail in self.triples:
            if head in skip or tail in skip or head == tail:
                continue
            if graph.has_edge(head, tail):
                graph[head][tail]["weight"] += 1.0
            else:
                graph.add_edge(head, tail, weight=1.0)
        return graph


def sample_neighborhood(
    store: GraphStore,
    seeds: Iterable[str],
    *,
    radius: int = 2,
    decay: float = 0.5,
    max_nodes: int = 160,
    max_neighbors_per_node: int = 32,
    seed: int | np.random.Generator | None = 0,
) -> SampledSubgraph:
    """Sample the ``radius``-hop neighbourhood of ``seeds`` with exponential decay.

    Parameters
    ----------
    store : GraphStore
        Where neighbours come from.
    seeds : iterable of str
        The nodes of the current community (hop 0, always kept).
    radius : int
        How many hops to expand.
    decay : float
        rho: a node first reached at hop n is kept with probability ``rho ** (n - 1)``.
    max_nodes : int
        Cap on the kept nodes, seeds included.
    max_neighbors_per_node : int
        Cap on the neighbours read per node (canonical order).
    seed : int or numpy Generator
        Seeds the sampling so a run repeats exactly.
    """
    if radius < 0:
        raise ValueError("radius must be >= 0")
    if not 0.0 <= decay <= 1.0:
        raise ValueError("decay must be in [0, 1]")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    hops: dict[str, int] = {}
    for node in sorted(set(seeds)):
        hops[node] = 0
    frontier = list(hops)
    rejected: set[str] = set()
    for hop in range(1, radius + 1):
        if not frontier or len(hops) >= max_nodes:
            break
        keep_probability = decay ** (hop - 1)
        batch = store.neighbors_batch(frontier, limit=max_neighbors_per_node)
        next_frontier: list[str] = []
        for node in frontier:
            for triple in batch.get(node, ()):
                other = triple.other(node)
                if other in hops or other in rejected:
                    continue
                if len(hops) >= max_nodes:
                    break
                # One draw per newly reached node, in a fixed order: the same seed gives the
                # same subgraph on every store.
                if keep_probability >= 1.0 or rng.random() < keep_probability:
                    hops[other] = hop
                    next_frontier.append(other)
                else:
                    rejected.add(other)
        frontier = next_frontier
    triples = store.triples_among(hops)
    return SampledSubgraph(nodes=tuple(hops), hops=hops, triples=tuple(triples))
