"""Candidate regions: the part of a large graph PCST searches.

PCST over MetaQA's 134k triples for every question would be wasteful, so G-Retriever first grows
a region from seed nodes (the topic entities, or the nodes most similar to the question) by a few
hops through the :class:`~kgcore.graph.store.GraphStore` protocol, one ``neighbors_batch`` call per
hop, so a remote store (Neo4j) answers each hop in one round trip. A size cap keeps the region
small; when a hop would pass it, the new nodes most similar to the question are kept.

A retriever without an index embeds each region it searches, so :func:`cap_region_texts` bounds
what one question embeds: at most ``max_texts`` distinct node and edge texts, keeping the nodes
nearest the seeds, then those with the best cheap :func:`lexical_scores` against the question.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("a", "r", "b"), ("b", "r", "c"), ("c", "r", "d")])
>>> region = expand_region(store, ["a"], hops=2, max_nodes=10)
>>> region.nodes, [tuple(t) for t in region.triples]
(('a', 'b', 'c'), [('a', 'r', 'b'), ('b', 'r', 'c')])
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore
from kgcore.types import Triple

#: Scores candidate nodes (higher is kept first) when a hop would pass the size cap.
NodeScorer = Callable[[Sequence[str]], np.ndarray]
#: The text an edge is embedded as (its relation, or ``"head relation tail"``).
EdgeText = Callable[[Triple], str]
_WORD = re.compile(r"[^\W_]+")


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


def lexical_scores(question: str, names: Sequence[str]) -> np.ndarray:
    """The share of each name's words that the question holds (0 to 1), a score that needs no
    embedding: ``Rock Hudson`` scores 1.0 for ``films with rock hudson``, ``Rock Band`` 0.5.

    Words are runs of letters and digits, lower-cased.

    >>> lexical_scores("films with Rock Hudson", ["Rock Hudson", "Rock Band", "1963"]).tolist()
    [1.0, 0.5, 0.0]
    """
    asked = {w.lower() for w in _WORD.findall(question)}
    scores = np.zeros(len(names), dtype=np.float64)
    for i, name in enumerate(names):
        words = [w.lower() for w in _WORD.findall(name)]
        if words:
            scores[i] = sum(w in asked for w in words) / len(words)
    return scores


def _distances(region: Region) -> dict[str, int]:
    """Hops from the nearest seed to each node, inside the region."""
    adjacent: dict[str, list[str]] = {node: [] for node in region.nodes}
    for triple in region.triples:
        adjacent.setdefault(triple.head, []).append(triple.tail)
        adjacent.setdefault(triple.tail, []).append(triple.head)
    distance = dict.fromkeys(region.seeds, 0)
    queue = deque(region.seeds)
    while queue:
        node = queue.popleft()
        for other in adjacent.get(node, ()):
            if other not in distance:
                distance[other] = distance[node] + 1
                queue.append(other)
    return distance


def region_texts(nodes: Sequence[str], triples: Sequence[Triple], edge_text: EdgeText) -> int:
    """How many distinct texts embedding these nodes and edges takes (the same text is
    embedded once, whether it names a node or an edge)."""
    return len({*nodes, *(edge_text(t) for t in triples)})


def cap_region_texts(
    region: Region,
    max_texts: int,
    edge_text: EdgeText,
    scorer: NodeScorer | None = None,
) -> Region:
    """The best part of ``region`` whose nodes and edges hold at most ``max_texts`` texts.

    Nodes are ranked by their distance to the nearest seed inside the region (the seeds
    first), then by ``scorer`` (best first; e.g. :func:`lexical_scores`, cheap), then by their
    order in the region; the longest prefix of that ranking whose nodes and the edges among
    them hold at most ``max_texts`` distinct texts (:func:`region_texts`) is kept, in the
    region's order. A region within the cap is returned as it is.

    Example
    -------
    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([("hub", "r", f"leaf{i}") for i in range(5)])
    >>> region = expand_region(store, ["hub"], hops=1)
    >>> small = cap_region_texts(region, 4, lambda t: t.relation)
    >>> small.nodes, small.truncated
    (('hub', 'leaf0', 'leaf1'), True)
    """
    if max_texts < 1:
        raise ConfigurationError(f"max_texts must be at least 1, got {max_texts}")
    if region_texts(region.nodes, region.triples, edge_text) <= max_texts:
        return region
    distance = _distances(region)
    far = len(region.nodes) + 1
    scores = (
        np.asarray(scorer(region.nodes), dtype=np.float64)
        if scorer is not None
        else np.zeros(len(region.nodes))
    )
    ranked = sorted(
        range(len(region.nodes)),
        key=lambda i: (distance.get(region.nodes[i], far), -scores[i], i),
    )

    def kept(count: int) -> tuple[list[str], list[Triple]]:
        chosen = sorted(ranked[:count])  # the region's order
        nodes = [region.nodes[i] for i in chosen]
        members = set(nodes)
        return nodes, [t for t in region.triples if t.head in members and t.tail in members]

    low, high = 0, len(region.nodes)  # low nodes always fit, high + 1 never do
    while low < high:
        middle = (low + high + 1) // 2
        if region_texts(*kept(middle), edge_text) <= max_texts:
            low = middle
        else:
            high = middle - 1
    nodes, triples = kept(low)
    members = set(nodes)
    return replace(
        region,
        nodes=tuple(nodes),
        triples=tuple(triples),
        seeds=tuple(s for s in region.seeds if s in members),
        truncated=True,
    )
