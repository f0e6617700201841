"""n-hop neighbourhoods with seeded random sampling and exponential decay (FastToG's LCS).

Hop by hop, each frontier node draws at most ``neighbors_per_hop[n - 1]`` of its unseen
neighbours uniformly at random (the reference code draws 20, 10 and 5 at hops 1, 2 and 3), and
a node first reached at hop ``n`` is kept with probability ``decay ** (n - 1)`` (the paper's
rho^(n-1)). The ``max_nodes`` budget is shared fairly across the frontier: the draws of all
frontier nodes are taken round-robin, one per node in turn, so a hub cannot fill the budget
before its siblings are read.

Attribute hubs (a year, a language or a genre shared by hundreds of films: at least
``hub_degree`` neighbours) reached on the way are kept as nodes, so they can be answers, but
are not expanded: walking through them links the question to unrelated entities. Their node
names are in :attr:`SampledSubgraph.hubs`, and community detection keeps them apart.

Every random draw comes from one seeded generator in a fixed order, so a run repeats exactly
and every store (given the same canonical neighbour order) gives the same subgraph. The store is
asked once per hop for the whole frontier, then once for the triples among the kept nodes:
``radius + 1`` round trips.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("a", "r", "b"), ("b", "r", "c")])
>>> sub = sample_neighborhood(store, ["a"], radius=2, decay=1.0, seed=0)
>>> sorted(sub.nodes), sub.hops["c"]
(['a', 'b', 'c'], 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from kgcore.exceptions import InvalidSettingError
from kgcore.graph.store import GraphStore
from kgcore.types import Triple

#: Neighbours drawn per frontier node at hops 1, 2, 3 (deeper hops reuse the last value),
#: as in the FastToG reference code.
NEIGHBORS_PER_HOP = (20, 10, 5)


@dataclass(frozen=True)
class SampledSubgraph:
    """Kept nodes (in discovery order), their hop distance, the triples among them, and the
    attribute hubs that were kept but not expanded."""

    nodes: tuple[str, ...]
    hops: dict[str, int]
    triples: tuple[Triple, ...]
    hubs: frozenset[str] = field(default_factory=frozenset)

    def to_networkx(self, exclude: Iterable[str] = ()) -> nx.Graph:
        """Undirected simple graph for community detection; weight = relations between a pair.

        Hubs stay as isolated nodes (each becomes a community of its own): an edge to a value
        shared by hundreds of entities says nothing about which of them belong together.
        """
        skip = set(exclude)
        graph = nx.Graph()
        graph.add_nodes_from(n for n in self.nodes if n not in skip)
        for head, _, tail in self.triples:
            if head in skip or tail in skip or head == tail:
                continue
            if head in self.hubs or tail in self.hubs:
                continue
            if graph.has_edge(head, tail):
                graph[head][tail]["weight"] += 1.0
            else:
                graph.add_edge(head, tail, weight=1.0)
        return graph


def _budget(neighbors_per_hop: Sequence[int], hop: int) -> int:
    return int(neighbors_per_hop[min(hop, len(neighbors_per_hop)) - 1])


def sample_neighborhood(
    store: GraphStore,
    seeds: Iterable[str],
    *,
    radius: int = 2,
    decay: float = 0.5,
    max_nodes: int = 160,
    neighbors_per_hop: Sequence[int] = NEIGHBORS_PER_HOP,
    max_neighbors_per_node: int | None = 5000,
    hub_degree: int | None = None,
    seed: int | np.random.Generator | None = 0,
) -> SampledSubgraph:
    """Sample the ``radius``-hop neighbourhood of ``seeds`` (see the module docstring).

    Parameters
    ----------
    store : GraphStore
        Where neighbours come from.
    seeds : iterable of str
        The nodes of the current community (hop 0, always kept and always expanded).
    radius : int
        How many hops to expand.
    decay : float
        rho: a node first reached at hop n is kept with probability ``rho ** (n - 1)``.
    max_nodes : int
        Cap on the kept nodes, seeds included, shared round-robin across the frontier.
    neighbors_per_hop : sequence of int
        Neighbours drawn at random per frontier node at hop 1, 2, ... (the last value repeats).
    max_neighbors_per_node : int, optional
        Cap on the neighbours read from the store per node (canonical order); ``None`` reads
        all. The default covers every MetaQA node (Drama: 4,176) and keeps Neo4j reads bounded.
    hub_degree : int, optional
        A non-seed node with at least this many neighbours is a hub: kept, not expanded.
    seed : int or numpy Generator
        Seeds the sampling so a run repeats exactly.

    Examples
    --------
    >>> from kgcore.graph import InMemoryGraphStore
    >>> films = [(f"film{i}", "release_year", "1990") for i in range(50)]
    >>> store = InMemoryGraphStore.from_triples([("Heat", "release_year", "1990"), *films])
    >>> sub = sample_neighborhood(store, ["Heat"], decay=1.0, hub_degree=40)
    >>> sorted(sub.nodes), sorted(sub.hubs)
    (['1990', 'Heat'], ['1990'])
    """
    if radius < 0:
        raise InvalidSettingError("radius must be >= 0")
    if not 0.0 <= decay <= 1.0:
        raise InvalidSettingError("decay must be in [0, 1]")
    if not neighbors_per_hop or min(neighbors_per_hop) < 1:
        raise InvalidSettingError("neighbors_per_hop needs at least one value, each >= 1")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    hops: dict[str, int] = {}
    for node in sorted(set(seeds)):
        hops[node] = 0
    hubs: set[str] = set()
    frontier = list(hops)
    rejected: set[str] = set()
    for hop in range(1, radius + 1):
        if not frontier or len(hops) >= max_nodes:
            break
        keep_probability = decay ** (hop - 1)
        budget = _budget(neighbors_per_hop, hop)
        batch = store.neighbors_batch(frontier, limit=max_neighbors_per_node)
        draws: list[list[str]] = []
        for node in frontier:
            triples = batch.get(node, ())
            if hops[node] > 0 and hub_degree is not None and len(triples) >= hub_degree:
                hubs.add(node)  # reached on the way: an answer maybe, never a bridge
                continue
            # Unseen neighbours in the store's canonical order, then a seeded draw of them.
            unseen = list(
                dict.fromkeys(
                    other
                    for other in (t.other(node) for t in triples)
                    if other not in hops and other not in rejected
                )
            )
            order = rng.permutation(len(unseen))[:budget]
            draws.append([unseen[i] for i in order])
        next_frontier: list[str] = []
        for turn in range(max((len(d) for d in draws), default=0)):  # round-robin: fair shares
            for drawn in draws:
                if turn >= len(drawn) or len(hops) >= max_nodes:
                    continue
                other = drawn[turn]
                if other in hops or other in rejected:
                    continue
                # One keep/reject draw per newly reached node, in a fixed order.
                if keep_probability >= 1.0 or rng.random() < keep_probability:
                    hops[other] = hop
                    next_frontier.append(other)
                else:
                    rejected.add(other)
        frontier = next_frontier
    triples = store.triples_among(hops)
    return SampledSubgraph(
        nodes=tuple(hops), hops=hops, triples=tuple(triples), hubs=frozenset(hubs)
    )
