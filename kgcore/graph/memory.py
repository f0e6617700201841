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

import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import networkx as nx

from kgcore.concurrency import keep_out_of_collections
from kgcore.graph.loaders import read_triples
from kgcore.graph.names import check_triples, normalize_name, rank_names
from kgcore.graph.store import check_limit
from kgcore.types import Triple, neighbor_sort_key

#: Fuzzy searches remembered by :meth:`InMemoryGraphStore.search_nodes`.
SEARCH_CACHE = 4096
#: Triples from which a store built at once (:meth:`InMemoryGraphStore.from_triples`) takes
#: its objects out of the cycle collector's sight, and again each time its cached neighbour
#: lists grow by as many (:func:`~kgcore.concurrency.keep_out_of_collections`): a full
#: collection over MetaQA's graph and caches held the GIL, and so the event loop, for 0.4 s.
FREEZE_STEP = 10_000


class InMemoryGraphStore:
    """A :class:`~kgcore.graph.store.GraphStore` held in a ``networkx.MultiDiGraph``.

    Edges are keyed by relation, so a triple loaded twice is stored once. Sorted neighbour
    lists, the name index, fuzzy searches and the triple count are built on first use and
    cached; :meth:`add_triples` updates or drops only what the new triples touch (see there).

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
        self._unfrozen = 0  # triples cached in neighbour lists since the last freeze
        self._by_normal: dict[str, list[str]] | None = None
        self._names: list[str] | None = None
        self._lock = threading.RLock()
        self._num_triples: int | None = None
        # (text, limit) -> (names found, the normalised text when only names equal to it were
        # ranked, else None): see _forget_searches for which entries a write keeps.
        self._searches: dict[tuple[str, int], tuple[list[str], str | None]] = {}
        self._generation = 0  # bumped by every write adding names: a search begun before it
        # is not cached
        self._matching: dict[str, tuple[int, bool]] = {}  # pattern -> (generation, found)
        self._relations: frozenset[str] | None = None  # every relation name, until a write

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
        if store.graph.number_of_edges() >= FREEZE_STEP:
            keep_out_of_collections()  # the graph lives as long as the store
        return store

    @classmethod
    def from_file(
        cls, path: str | Path, fmt: str | None = None, progress: bool | None = None
    ) -> InMemoryGraphStore:
        """Load a triple file (see :mod:`kgcore.graph.loaders` for the formats; ``progress``
        as in :func:`~kgcore.graph.loaders.read_triples`)."""
        return cls.from_triples(read_triples(path, fmt=fmt, progress=progress))

    def add_triples(self, triples: Iterable[Sequence[str]]) -> None:
        """Add triples; duplicates are ignored. Safe while other threads read.

        Only the caches the new triples touch change: the neighbour lists of their heads and
        tails are dropped, new names are appended to the name index (in the order a store
        built from all the triples at once would have them), the triple count grows by the
        new edges, and remembered searches are kept unless a new name could change them (a
        search answered by names equal to the query after normalisation survives new names
        that normalise differently; fuzzy searches are dropped when any name is new). Triples
        between known nodes keep every search.
        """
        edges = [(h, t, r) for h, r, t in triples]  # read the input outside the lock
        with self._lock:
            graph = self.graph
            new_nodes = list(
                dict.fromkeys(n for h, t, _ in edges for n in (h, t) if n not in graph)
            )
            if self._num_triples is not None:
                self._num_triples += len({edge for edge in edges if not graph.has_edge(*edge)})
            graph.add_edges_from(edges)
            self._relations = None
            if self._neighbors:
                for head, tail, _ in edges:
                    self._neighbors.pop(head, None)
                    self._neighbors.pop(tail, None)
            if new_nodes:
                self._generation += 1
                if self._searches or self._by_normal is not None:  # else nothing to update
                    keyed = [(normalize_name(node), node) for node in new_nodes]
                    self._index_new_names(keyed)
                    self._forget_searches({key for key, _ in keyed})

    def _index_new_names(self, keyed: Sequence[tuple[str, str]]) -> None:
        """Append new ``(normalised name, node)`` pairs to the name index, if built.

        Copy on write: a search running outside the lock keeps the index it started with.
        """
        if self._by_normal is None or self._names is None:
            return
        by_normal = dict(self._by_normal)
        names = list(self._names)
        for key, node in keyed:
            known = by_normal.get(key)
            if known is None:
                names.append(key)
            by_normal[key] = [*(known or ()), node]
        self._by_normal, self._names = by_normal, names

    def _forget_searches(self, touched: set[str]) -> None:
        """Drop the remembered searches that names normalising to ``touched`` could change."""
        self._searches = {
            key: entry
            for key, entry in self._searches.items()
            if entry[1] is not None and entry[1] not in touched
        }

    # -- protocol ----------------------------------------------------------------------
    def has_node(self, name: str) -> bool:
        return name in self.graph

    def num_nodes(self) -> int:
        return int(self.graph.number_of_nodes())

    def num_triples(self) -> int:
        # Cached: networkx counts multigraph edges by walking every adjacency, and FastToG asks
        # once per question (docs/research/code_measurements.md#memory-store).
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
        # last SEARCH_CACHE results (a write drops those its new names could change).
        # Each entry notes whether only names equal to the query after normalisation were
        # ranked (rank_names stops there once it has ``limit`` of them): such an answer can
        # change only when a name normalising to the query is added.
        key = (text, limit)
        entry = self._searches.get(key)
        if entry is None:
            generation = self._generation
            by_normal, names = self._name_index()
            found = rank_names(text, by_normal, names, limit)
            normal = normalize_name(text)
            entry = (found, normal if len(by_normal.get(normal, ())) >= limit else None)
            with self._lock:
                if generation != self._generation:
                    return list(found)
                if len(self._searches) >= SEARCH_CACHE:
                    self._searches = {}
                self._searches[key] = entry
        return list(entry[0])

    def relation_names(self) -> frozenset[str]:
        """Every relation name of the graph (read once until a write).

        >>> sorted(InMemoryGraphStore.from_triples([("a", "r", "b"), ("b", "s", "c")])
        ...        .relation_names())
        ['r', 's']
        """
        with self._lock:
            if self._relations is None:
                self._relations = frozenset(k for _, _, k in self.graph.edges(keys=True))
            return self._relations

    def holds_names_matching(self, pattern: str) -> bool:
        """Whether a node's whole name matches the regular expression ``pattern`` (read once
        per pattern until a write adds names).

        >>> store = InMemoryGraphStore.from_triples([("m.0ab", "r", "Paris")])
        >>> store.holds_names_matching(r"m\\.\\w+"), store.holds_names_matching(r"x+")
        (True, False)
        """
        seen = self._matching.get(pattern)
        generation = self._generation
        if seen is None or seen[0] != generation:
            compiled = re.compile(pattern)
            with self._lock:
                found = any(compiled.fullmatch(node) for node in self.graph)
            seen = self._matching[pattern] = (generation, found)
        return seen[1]

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
                self._unfrozen += len(triples)
                if self._unfrozen >= FREEZE_STEP:  # the cache lives as long as the store
                    self._unfrozen = 0
                    keep_out_of_collections(collect=False)
        return cached if limit is None else cached[:limit]

    def neighbors_batch(
        self, nodes: Iterable[str], limit: int | None = None
    ) -> Mapping[str, Sequence[Triple]]:
        limit = check_limit(limit)
        return {node: self.neighbors(node, limit) for node in nodes}

    def triples_among(self, nodes: Iterable[str]) -> list[Triple]:
        members = set(nodes)
        # networkx's adjacency dicts directly: out_edges() views cost far more on this hot path
        # (one call per Local Community Search step; docs/research/code_measurements.md).
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
