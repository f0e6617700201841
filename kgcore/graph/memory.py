"""The embedded default store: an in-memory knowledge graph on networkx.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([
...     ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
...     ("Cleopatra", "release_year", "1963"),
... ])
>>> [t.tail for t in store.neighbors("Cleopatra")]
['1963', 'Joseph L. Mankiewicz']
>>> store.search_nodes("cleopatra", limit=1)
['Cleopatra']
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import networkx as nx

from kgcore.graph.loaders import read_triples
from kgcore.graph.names import check_triples, normalize_name, rank_names
from kgcore.graph.store import check_limit
from kgcore.types import Triple, neighbor_sort_key

#: Fuzzy searches remembered by :meth:`InMemoryGraphStore.search_nodes`.
SEARCH_CACHE = 4096


class InMemoryGraphStore:
    """A :class:`~kgcore.graph.store.GraphStore` held in a ``networkx.MultiDiGraph``.

    Edges are keyed by relation, so a triple loaded twice is stored once. Sorted neighbour
    lists are built on first use and cached.

    The store is safe to share between threads: :meth:`add_triples` may run while other
    threads read (one lock guards the graph and the caches; cached neighbour lists are read
    without it). Changing :attr:`graph` directly bypasses the lock.

    Parameters
    ----------
    graph : networkx.MultiDiGraph, optional
        An existing graph whose edge keys are relation names.
    """

    def __init__(self, graph: nx.MultiDiGraph | None = None) -> None:
        self.graph: nx.MultiDiGraph = graph if graph is not None else nx.MultiDiGraph()
        self._neighbors: dict[str, list[Triple]] = {}
        self._by_normal: dict[str, list[str]] | None = None
        self._names: list[str] | None = None
        self._lock = threading.RLock()
        self._num_triples: int | None = None
        self._searches: dict[tuple[str, int], list[str]] = {}
        self._generation = 0  # bumped by every write: a search begun before it is not cached

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_triples(cls, triples: Iterable[Sequence[str]]) -> InMemoryGraphStore:
        """Build a store from ``(head, relation, tail)`` sequences.

        Each triple must be three names (:func:`~kgcore.graph.names.check_triple`): a string
        or a mapping is not unpacked into bogus triples, and ``None``, a number, a blank name
        or one holding a control character is refused, with a
        :class:`~kgcore.exceptions.GraphLoadError` naming the triple's position.
        """
        store = cls()
        store.add_triples(list(check_triples(triples)))
        return store

    @classmethod
    def from_file(
        cls, path: str | Path, fmt: str | None = None, progress: bool = True
    ) -> InMemoryGraphStore:
        """Load a triple file (see :mod:`kgcore.graph.loaders` for the formats)."""
        return cls.from_triples(read_triples(path, fmt=fmt, progress=progress))

    def add_triples(self, triples: Iterable[Sequence[str]]) -> None:
        """Add triples; duplicates are ignored. Safe while other threads read."""
        edges = [(h, t, r) for h, r, t in triples]  # read the input outside the lock
        with self._lock:
            self.graph.add_edges_from(edges)
            self._neighbors = {}
            self._by_normal = None
            self._names = None
            self._num_triples = None
            self._searches = {}
            self._generation += 1

    # -- protocol ----------------------------------------------------------------------
    def has_node(self, name: str) -> bool:
        return name in self.graph

    def num_nodes(self) -> int:
        return int(self.graph.number_of_nodes())

    def num_triples(self) -> int:
        # Cached: networkx counts multigraph edges by walking every adjacency (2.7 s on MetaQA
        # under load), and FastToG asks once per question.
        with self._lock:
            if self._num_triples is None:
                self._num_triples = int(self.graph.number_of_edges())
            return self._num_triples

    def _name_index(self) -> tuple[dict[str, list[str]], list[str]]:
        with self._lock:
            if self._by_normal is None or self._names is None:
                by_normal: dict[str, list[str]] = {}
                for node in self.graph:
                    by_normal.setdefault(normalize_name(node), []).append(node)
                self._by_normal = by_normal
                self._names = list(by_normal)
            return self._by_normal, self._names

    def search_nodes(self, text: str, limit: int = 5) -> list[str]:
        # Fuzzy ranking over every name costs tens of milliseconds on a large graph, and the
        # same names come back (each step's reply, each question's topic entity): keep the
        # last SEARCH_CACHE results (cleared when the graph changes).
        key = (text, limit)
        found = self._searches.get(key)
        if found is None:
            generation = self._generation
            by_normal, names = self._name_index()
            found = rank_names(text, by_normal, names, limit)
            with self._lock:
                if generation != self._generation:
                    return list(found)
                if len(self._searches) >= SEARCH_CACHE:
                    self._searches = {}
                self._searches[key] = found
        return list(found)

    def neighbors(self, node: str, limit: int | None = None) -> list[Triple]:
        limit = check_limit(limit)
        cached = self._neighbors.get(node)
        if cached is None:
            with self._lock:
                if node not in self.graph:
                    return []
                graph = self.graph
                triples = [Triple(node, r, t) for _, t, r in graph.out_edges(node, keys=True)]
                triples += [
                    Triple(h, r, node) for h, _, r in graph.in_edges(node, keys=True) if h != node
                ]
                triples.sort(key=lambda tr: neighbor_sort_key(node, tr))
                self._neighbors[node] = cached = triples
        return cached if limit is None else cached[:limit]

    def neighbors_batch(
        self, nodes: Iterable[str], limit: int | None = None
    ) -> Mapping[str, Sequence[Triple]]:
        limit = check_limit(limit)
        return {node: self.neighbors(node, limit) for node in nodes}

    def triples_among(self, nodes: Iterable[str]) -> list[Triple]:
        members = set(nodes)
        # networkx's adjacency dicts directly: out_edges() views cost ~10x more on this hot
        # path (one call per Local Community Search step).
        with self._lock:
            successors = self.graph._succ
            found = [
                Triple(h, r, t)
                for h in members
                if h in successors
                for t, keyed in successors[h].items()
                if t in members
                for r in keyed
            ]
        found.sort()
        return found

    def __repr__(self) -> str:
        return f"InMemoryGraphStore(nodes={self.num_nodes()}, triples={self.num_triples()})"
