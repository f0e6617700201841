"""Candidate regions: the part of a large graph PCST searches.

PCST over MetaQA's 134k triples for every question would be wasteful, so G-Retriever first grows
a region from seed nodes (the topic entities, or the nodes most similar to the question) by a few
hops through the :class:`~kgcore.graph.store.GraphStore` protocol, one ``neighbors_batch`` call per
hop, so a remote store (Neo4j) answers each hop in one round trip. A size cap keeps the region
small; when a hop would pass it, the new nodes most similar to the question are kept.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("a", "r", "b"), ("b", "r", "c"), ("c", "r", "d")])
>>> region = expand_region(store, ["a"], hops=2, max_nodes=10)
>>> region.nodes, [tuple(t) for t in region.triples]
(('a', 'b', 'c'), [('a', 'r', 'b'), ('b', 'r', 'c')])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore
from kgcore.types import Triple

#: Scores candidate nodes (higher is kept first) when a hop would pass the size cap.
NodeScorer = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Region:
    """A candidate region: its nodes (seeds first, then by hop) and the triples among them."""

    nodes: tuple[str, ...]
    triples: tuple[Triple, ...]
    seeds: tuple[str, ...]
    truncated: bool


def expand_region(
    store: GraphStore,
    seeds: Sequence[str],
    hops: int = 2,
    max_nodes: int = 2000,
    neighbor_limit: int | None = None,
    scorer: NodeScorer | None = None,
) -> Region:
    """Grow a region ``hops`` hops out from ``seeds``, with at most ``max_nodes`` nodes.

    Parameters
    ----------
    store : GraphStore
        The graph (any backend).
    seeds : sequence of str
        Node names to start from (unknown names are skipped).
    hops : int
        How far to expand (0 keeps the seeds alone).
    max_nodes : int
        Size cap. When a hop would pass it, the new nodes ranked best by ``scorer`` are kept
        (without a scorer: the first in the store's canonical neighbour order).
    neighbor_limit : int, optional
        At most this many neighbours per node and hop (tames hubs such as a year or a language).
    scorer : callable, optional
        ``scorer(names) -> scores``, e.g. cosine similarity to the question.

    Returns
    -------
    Region
        The nodes and every triple among them (``store.triples_among``).
    """
    if hops < 0:
        raise ConfigurationError(f"hops must be non-negative, got {hops}")
    if max_nodes < 1:
        raise ConfigurationError(f"max_nodes must be at least 1, got {max_nodes}")
    start = [s for s in dict.fromkeys(seeds) if store.has_node(s)][:max_nodes]
    members: dict[str, None] = dict.fromkeys(start)
    frontier = list(start)
    truncated = False
    for _ in range(hops):
        if not frontier or len(members) >= max_nodes:
            break
        found: dict[str, None] = {}
        for node, triples in store.neighbors_batch(frontier, limit=neighbor_limit).items():
            for triple in triples:
                other = triple.other(node)
                if other not in members:
                    found[other] = None
        candidates = list(found)
        room = max_nodes - len(members)
        if len(candidates) > room:
            truncated = True
            if scorer is not None:
                scores = np.asarray(scorer(candidates), dtype=np.float64)
                # Stable: equal scores keep the canonical neighbour order.
                keep = np.sort(np.argsort(-scores, kind="stable")[:room])
                candidates = [candidates[i] for i in keep]
            else:
                candidates = candidates[:room]
        members.update(dict.fromkeys(candidates))
        frontier = candidates
    nodes = tuple(members)
    return Region(nodes, tuple(store.triples_among(nodes)), tuple(start), truncated)
