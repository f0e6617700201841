"""A :class:`~kgcore.graph.store.GraphStore` over a Bolt graph of several labels, read as facts.

The graph is the user's, of any schema (:mod:`kgcore.graph.schema` finds it; a
:class:`~kgcore.graph.label_mapping.LabelMapping` says how it reads). Every read goes through
the :class:`~kgcore.graph.neo4j_store.Neo4jGraphStore` it wraps: read transactions with that
store's deadline and fail-over. Nothing is written and no index is needed.

- **Nodes** are named by their label's name property. A name that nodes of several entity
  labels hold stays several nodes: each is written ``name (Label)`` (:func:`node_key`), in
  neighbours, searches and answers, so the model and the reader see which is meant.
- **Facts**: relationships of the followed types between entity nodes (the type is the
  relation), and each fact property of a node as ``node -key-> value``. A value is a
  *literal* (:func:`literal_text`: ``1999``, ``7.4``, ``true``, ``1999-03-31``): a leaf with
  no neighbours of its own, for which :meth:`LabelGraphStore.has_node` is false and
  :meth:`LabelGraphStore.is_literal` true. A literal spelt like an entity's name (a year
  ``2014`` where a tag is named ``2014``) is quoted, ``"2014"`` (:func:`literal_key`), so a
  method never walks from the value to that entity.
- **Relationship properties** (``roles``) qualify their fact: the triple carries them as its
  note (:class:`~kgcore.types.QualifiedTriple`), shown beside the fact in a community's text.
- **Names** are searched in a copy of every entity name when the graph has at most
  ``name_cache_limit`` of them, else by each label's full-text index
  (:func:`~kgcore.graph.label_queries.fulltext_index_name`, made by ``kgqa index``, never
  by reading), else by a scan capped at :data:`SCAN_CAP` names per label (warned once,
  naming the index to create).

Example
-------
>>> store = LabelGraphStore(Neo4jGraphStore(uri), mapping)  # doctest: +SKIP
>>> store.neighbors("The Matrix")[:2]  # doctest: +SKIP
[Triple(head='The Matrix', relation='released', tail='1999'), ...]
"""

from __future__ import annotations

import math
import re
import threading
import warnings
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from kgcore.exceptions import GraphStoreError
from kgcore.graph.label_mapping import LabelMapping, is_id_key
from kgcore.graph.label_queries import fulltext_index_name, label_queries
from kgcore.graph.names import normalize_name, rank_names
from kgcore.graph.neighbor_cache import NeighborCache
from kgcore.graph.neo4j_fulltext import fulltext_names
from kgcore.graph.store import check_limit
from kgcore.types import Triple, neighbor_sort_key, qualified

__all__ = [
    "LIST_CAP",
    "SCAN_CAP",
    "LabelGraphStore",
    "literal_key",
    "literal_text",
    "node_key",
    "qualifier_text",
    "split_key",
]

#: Elements of a list property shown as facts at most.
LIST_CAP = 16
#: Names a scan returns per label at most.
SCAN_CAP = 1000
#: A string value longer than this is text, not a fact.
MAX_LITERAL_CHARS = 200
_QUALIFIED = re.compile(r"(.*) \(([A-Za-z_][A-Za-z0-9_]*)\)\Z", re.DOTALL)


def node_key(name: str, label: str, shared: bool) -> str:
    """A node's name as the methods see it: qualified by its label when ``shared``.

    >>> node_key("Keanu Reeves", "Tag", True), node_key("The Matrix", "Movie", False)
    ('Keanu Reeves (Tag)', 'The Matrix')
    """
    return f"{name} ({label})" if shared else name


def literal_key(text: str, named: bool) -> str:
    """A literal as the methods see it: quoted when an entity node has the same name
    (``named``), so the value is never taken for that node.

    >>> literal_key("2014", True), literal_key("1999", False)
    ('"2014"', '1999')
    """
    return f'"{text}"' if named else text


def qualifier_text(props: Any) -> str:
    """A relationship's properties as the note that qualifies its fact (values as literals;
    ids, vectors and long texts left out).

    >>> qualifier_text({"roles": ["Neo"], "since": 1999}), qualifier_text({})
    ('roles: Neo; since: 1999', '')
    """
    if not isinstance(props, dict):
        return ""
    parts = []
    for key in sorted(props):
        texts = literal_text(props[key])
        if texts and not is_id_key(str(key)):
            parts.append(f"{key}: {', '.join(texts)}")
    return "; ".join(parts)


def split_key(key: str, labels: Sequence[str]) -> tuple[str, str | None]:
    """``(name, label)`` of a qualified key whose label is one of ``labels``, else
    ``(key, None)``.

    >>> split_key("Keanu Reeves (Tag)", ["Tag"]), split_key("Heat (1995)", ["Tag"])
    (('Keanu Reeves', 'Tag'), ('Heat (1995)', None))
    """
    match = _QUALIFIED.match(key)
    if match and match.group(2) in labels:
        return match.group(1), match.group(2)
    return key, None


def literal_text(value: Any) -> list[str]:
    """A property value as the literals it states (none for what is not a fact: null, NaN,
    a long text, a nested list).

    >>> literal_text(1999), literal_text(7.4), literal_text(True), literal_text(["Neo", "Thomas"])
    (['1999'], ['7.4'], ['true'], ['Neo', 'Thomas'])
    >>> literal_text(float("nan")), literal_text("x" * 300), literal_text(None)
    ([], [], [])
    """
    if isinstance(value, list | tuple):
        found: list[str] = []
        for item in value[:LIST_CAP]:
            if not isinstance(item, list | tuple):
                found += literal_text(item)
        return found
    if value is None:
        return []
    if isinstance(value, bool):
        return ["true" if value else "false"]
    if isinstance(value, float):
        return [repr(value)] if math.isfinite(value) else []
    if isinstance(value, int):
        return [str(value)]
    if isinstance(value, str):
        text = " ".join(value.split())
        return [text] if text and len(text) <= MAX_LITERAL_CHARS else []
    iso = getattr(value, "iso_format", None) or getattr(value, "isoformat", None)
    return [str(iso())] if callable(iso) else []


class LabelGraphStore:
    """A graph of several labels as a :class:`~kgcore.graph.store.GraphStore` (see the module).

    Parameters
    ----------
    connection : Neo4jGraphStore
        The Bolt connection (its driver, deadlines and fail-over); its own mapping is unused.
    mapping : LabelMapping
        Entity labels with their name properties and facts, relationship types followed.
    name_cache_limit : int
        The most entity names copied for name search and for telling shared names apart;
        above it, names are found by capped scans and shared names by one query per batch.
    """

    def __init__(
        self, connection: Any, mapping: LabelMapping, name_cache_limit: int = 200_000
    ) -> None:
        self.connection = connection
        self.mapping = mapping
        self.name_cache_limit = int(name_cache_limit)
        self._labels = mapping.label_names
        self._q = label_queries(mapping)
        self._lock = threading.Lock()
        self._directory: dict[str, tuple[str, ...]] | None = None  # name -> its labels
        self._small: bool | None = None
        self._warned = False
        self._fulltext: dict[str, str] = {}  # label -> the full-text index that answers, or ""
        kept: NeighborCache | None = getattr(connection, "neighbor_cache", None)
        # The connection's bounds (its settings), lists of its own (keys are label-qualified).
        self.neighbor_cache = kept.fresh() if kept is not None else NeighborCache()

    # -- reading ------------------------------------------------------------------------
    @property
    def uri(self) -> str:
        return str(self.connection.uri)

    def _read(self, label: str, kind: str, **params: Any) -> list[list[Any]]:
        return list(self.connection.read_named(f"{kind} ({label})", self._q[label][kind], params))

    def _is_small(self) -> bool:
        if self._small is None:
            self._small = self.num_nodes() <= self.name_cache_limit
        return self._small

    def _names_directory(self) -> dict[str, tuple[str, ...]]:
        """Every entity name with the labels holding it (copied once; the reads hold no lock,
        since an awaited run may switch questions while one waits)."""
        if self._directory is None:
            found: dict[str, list[str]] = {}
            for label in self._labels:
                for (name,) in self._read(label, "all_names"):
                    if isinstance(name, str) and label not in found.get(name, ()):
                        found.setdefault(name, []).append(label)
            directory = {name: tuple(labels) for name, labels in found.items()}
            with self._lock:
                if self._directory is None:
                    self._directory = directory
        return self._directory

    def labels_of(self, names: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The entity labels holding each of ``names`` (no entry: none)."""
        wanted = list(dict.fromkeys(n for n in names if isinstance(n, str)))
        if not wanted:
            return {}
        if self._is_small():
            directory = self._names_directory()
            return {n: directory[n] for n in wanted if n in directory}
        found: dict[str, list[str]] = {}
        for label in self._labels:
            for (name,) in self._read(label, "names_in", names=wanted):
                found.setdefault(name, []).append(label)
        return {name: tuple(labels) for name, labels in found.items()}

    def resolve_many(self, keys: Iterable[str]) -> dict[str, tuple[str, str]]:
        """``(label, name)`` of the entity node each key names, in one lookup; keys naming
        none (literals, or a name that several labels hold written without its label) are
        left out."""
        parts = {key: split_key(key, self._labels) for key in dict.fromkeys(keys)}
        holders = self.labels_of({name for name, _ in parts.values()} | set(parts))
        found: dict[str, tuple[str, str]] = {}
        for key, (name, label) in parts.items():
            if label is not None and label in holders.get(name, ()):
                found[key] = (label, name)
            elif len(holders.get(key, ())) == 1:
                found[key] = (holders[key][0], key)
        return found

    def resolve(self, key: str) -> tuple[str, str] | None:
        """:meth:`resolve_many` for one key, or ``None``."""
        return self.resolve_many([key]).get(key)

    def key_of(self, name: str, label: str, holders: Mapping[str, Sequence[str]]) -> str:
        return node_key(name, label, len(holders.get(name, ())) > 1)

    # -- protocol -----------------------------------------------------------------------
    def has_node(self, name: str) -> bool:
        return self.resolve(name) is not None

    def is_literal(self, name: str) -> bool:
        """Whether ``name`` is no entity node: a property value (or nothing of the graph)."""
        return self.resolve(name) is None

    def num_nodes(self) -> int:
        return sum(int(self._read(label, "count")[0][0]) for label in self._labels)

    def num_triples(self) -> int:
        """Relationships followed between entity nodes, and fact properties set."""
        total = 0
        for label in self._labels:
            total += int(self._read(label, "relationships")[0][0] or 0)
            total += int(self._read(label, "facts_count")[0][0] or 0)
        return total

    def neighbors(self, node: str, limit: int | None = None) -> list[Triple]:
        return list(self.neighbors_batch([node], limit)[node])

    def neighbors_batch(
        self, nodes: Iterable[str], limit: int | None = None
    ) -> Mapping[str, Sequence[Triple]]:
        """Neighbours of a frontier: one query per entity label in it; literals have none."""
        asked = list(dict.fromkeys(nodes))
        limit = check_limit(limit)
        cached = self.neighbor_cache.get_many(asked, limit)
        frontier = [node for node in asked if node not in cached]
        by_label: dict[str, dict[str, str]] = {}  # label -> name -> key
        for key, (label, name) in self.resolve_many(frontier).items():
            by_label.setdefault(label, {})[name] = key
        rows: list[tuple[str, str, list[list[str]], list[Any]]] = []  # facts as literals
        for label, names in by_label.items():
            for name, facts, pairs in self._read(label, "neighbors", names=list(names)):
                rows.append((names[name], label, [literal_text(v) for v in facts], pairs))
        holders = self.labels_of(
            [other for *_, pairs in rows for other, *_ in pairs if isinstance(other, str)]
            + [text for _, _, facts, _ in rows for texts in facts for text in texts]
        )
        result: dict[str, list[Triple]] = {key: [] for key in frontier}
        for key, label, facts, pairs in rows:
            triples = set()
            for other, other_label, rel_type, direction, props in pairs:
                if not isinstance(other, str):
                    continue  # a node whose name is not a string is left out
                other_key = self.key_of(other, other_label, holders)
                fact = (
                    Triple(key, rel_type, other_key)
                    if direction == 0
                    else Triple(other_key, rel_type, key)
                )
                triples.add(qualified(fact, qualifier_text(props)))
            for prop, texts in zip(self.mapping.spec(label).facts, facts, strict=True):
                triples.update(
                    Triple(key, prop, literal_key(text, text in holders)) for text in texts
                )
            ordered = sorted(triples, key=partial(neighbor_sort_key, key))
            result[key] = ordered if limit is None else ordered[:limit]
        for key in frontier:
            self.neighbor_cache.put(key, limit, result[key])
        return {key: list(cached[key]) if key in cached else result[key] for key in asked}

    def triples_among(self, nodes: Iterable[str]) -> list[Triple]:
        members = set(nodes)
        found = {
            t
            for triples in self.neighbors_batch(sorted(members)).values()
            for t in triples
            if t.head in members and t.tail in members
        }
        return sorted(found)

    def search_nodes(self, text: str, limit: int = 5) -> list[str]:
        """Entity names closest to ``text``, best first (qualified where shared)."""
        if limit <= 0:
            return []
        if self._is_small():
            holders = self._names_directory()
            candidates = list(holders)
        else:
            candidates = [n for label in self._labels for n in self._large_candidates(label, text)]
            holders = self.labels_of(candidates)
        by_normal: dict[str, list[str]] = {}
        for name in sorted(candidates):
            for label in holders.get(name, ()):
                by_normal.setdefault(normalize_name(name), []).append(
                    self.key_of(name, label, holders)
                )
        return rank_names(text, by_normal, list(by_normal), limit)

    def _large_candidates(self, label: str, text: str) -> list[str]:
        """A label's candidate names on a large graph: its full-text index (Neo4j's name,
        then ArcadeDB's ``Label[property]``), else a scan."""
        prop = self.mapping.spec(label).name_property
        known = self._fulltext.get(label)
        names = [known] if known else [] if known == "" else [
            fulltext_index_name(label, prop), f"{label}[{prop}]"]  # fmt: skip
        for index in names:

            def read(kind: str, query: str, cap: int, index: str = index) -> list[Any]:
                return self._read(label, "fulltext", index=index, query=query, cap=cap)

            try:
                found = fulltext_names(read, text)
            except GraphStoreError:
                if known:
                    raise  # the index answered before: the server failed now
                continue
            self._fulltext[label] = index
            return found
        self._fulltext[label] = ""
        self._warn_scan(label)
        tokens = sorted({t for t in normalize_name(text).split(" ") if t}) or [""]
        rows = self._read(label, "scan", text=text, tokens=tokens, cap=SCAN_CAP)
        return [row[0] for row in rows if isinstance(row[0], str)]

    def _warn_scan(self, label: str) -> None:
        if not self._warned:
            self._warned = True
            index = fulltext_index_name(label, self.mapping.spec(label).name_property)
            warnings.warn(
                f"{self.uri} has more than {self.name_cache_limit:,} entity names and no "
                f"full-text index {index!r}: name search scans ({SCAN_CAP} names per label at "
                "most); `kgqa index --kg URI` creates the indexes",
                stacklevel=4,
            )

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> LabelGraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LabelGraphStore({self.uri!r}, labels={list(self._labels)})"
