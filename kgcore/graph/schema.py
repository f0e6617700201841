"""What an existing Bolt graph holds, read with plain Cypher: no APOC, no writes.

:func:`discover_schema` reads a graph's labels, relationship types (with the labels at their
ends), property keys with the kinds of their values, and rough counts, in read transactions
of the store (:meth:`~kgcore.graph.neo4j_store.Neo4jGraphStore.read`, each with the store's
``query_timeout``), within one overall ``deadline``. Property kinds and relationship ends come
from bounded samples (``sample`` nodes per label, ``sample`` relationships per type) and counts
stop at ``count_cap``, so the cost does not grow with the graph. Labels and types come from
``db.labels()`` / ``db.relationshipTypes()`` where the server has them, else from a sample.

The result, a :class:`GraphSchema`, is plain data: :mod:`kgcore.graph.label_mapping` turns it
into the mapping a :class:`~kgcore.graph.label_store.LabelGraphStore` reads through, and
``kgqa schema`` prints it.

Example
-------
>>> schema = discover_schema(store)  # doctest: +SKIP
>>> schema.labels["Movie"].properties["released"].kind  # doctest: +SKIP
'int'
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kgcore.exceptions import ConfigurationError, GraphStoreError, InvalidSettingError
from kgcore.graph.neo4j_queries import cypher_identifier

__all__ = [
    "GraphSchema",
    "LabelSchema",
    "PropertySchema",
    "RelationshipSchema",
    "discover_schema",
    "value_kind",
]

#: Labels the package itself writes beside a graph (G-Retriever's relation vectors and the
#: record of the model that embedded them, :mod:`kgcore.gretriever.store_vectors`).
INTERNAL_LABELS = frozenset({"KgRelationText", "KgEmbeddingModel"})


def value_kind(value: Any) -> str:
    """The kind of a property value: ``str``, ``int``, ``float``, ``bool``, ``list`` (of
    scalars), ``vector`` (a list of over 16 numbers), ``temporal`` or ``other``.

    >>> [value_kind(v) for v in ("a", 3, 2.5, True, ["x"], [0.1] * 32, None)]
    ['str', 'int', 'float', 'bool', 'list', 'vector', 'other']
    """
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list | tuple):
        if len(value) > 16 and all(isinstance(x, int | float) for x in value):
            return "vector"
        return "list"
    if hasattr(value, "iso_format") or hasattr(value, "isoformat"):
        return "temporal"
    return "other"


@dataclass
class PropertySchema:
    """One property key of a label or relationship type, as the sample saw it."""

    key: str
    kind: str = "other"  # the most common value kind
    filled: int = 0  # sampled elements holding it
    distinct: int = 0  # distinct sampled string values
    mean_length: float = 0.0  # of sampled string values
    urls: int = 0  # sampled string values that are web addresses

    @property
    def nearly_unique(self) -> bool:
        """Whether the sampled string values are (nearly) all different."""
        return self.kind == "str" and self.filled > 0 and self.distinct >= 0.9 * self.filled


@dataclass
class LabelSchema:
    """One node label: its (capped) count and sampled properties."""

    label: str
    count: int = 0
    sampled: int = 0
    properties: dict[str, PropertySchema] = field(default_factory=dict)


@dataclass
class RelationshipSchema:
    """One relationship type: its (capped) count, the labels at its ends, its properties."""

    type: str
    count: int = 0
    ends: Counter[tuple[str, str]] = field(default_factory=Counter)  # (start, end) labels
    properties: dict[str, PropertySchema] = field(default_factory=dict)


@dataclass
class GraphSchema:
    """A graph's labels and relationship types (see the module docstring)."""

    labels: dict[str, LabelSchema]
    relationships: dict[str, RelationshipSchema]
    count_cap: int
    seconds: float = 0.0

    def nonempty_labels(self) -> set[str]:
        """The labels some node carries (a server may list a label none carries)."""
        return {name for name, label in self.labels.items() if label.count}

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON (``kgqa schema --json``)."""
        return {
            "labels": {
                name: {
                    "count": s.count,
                    "properties": {k: p.kind for k, p in sorted(s.properties.items())},
                }
                for name, s in sorted(self.labels.items())
            },
            "relationships": {
                name: {
                    "count": s.count,
                    "ends": sorted({f"{a}->{b}" for a, b in s.ends}),
                    "properties": {k: p.kind for k, p in sorted(s.properties.items())},
                }
                for name, s in sorted(self.relationships.items())
            },
            "count_cap": self.count_cap,
        }


def _tally(schemas: dict[str, PropertySchema], maps: Iterable[Mapping[str, Any]]) -> None:
    """Add sampled property maps to ``schemas``."""
    kinds: dict[str, Counter[str]] = {}
    strings: dict[str, list[str]] = {}
    for props in maps:
        for key, value in props.items():
            if value is None:
                continue
            kinds.setdefault(key, Counter())[value_kind(value)] += 1
            if isinstance(value, str):
                strings.setdefault(key, []).append(value)
    for key, counts in kinds.items():
        texts = strings.get(key, [])
        schemas[key] = PropertySchema(
            key=key,
            kind=counts.most_common(1)[0][0],
            filled=sum(counts.values()),
            distinct=len(set(texts)),
            mean_length=sum(map(len, texts)) / len(texts) if texts else 0.0,
            urls=sum(t.startswith(("http://", "https://", "www.")) for t in texts),
        )


def _ends(labels: list[Any]) -> str:
    names = sorted(str(x) for x in labels or ())
    return names[0] if names else ""


def discover_schema(
    store: Any,
    *,
    sample: int = 200,
    count_cap: int = 100_000,
    key_scan: int = 20_000,
    deadline: float = 30.0,
) -> GraphSchema:
    """Read ``store``'s schema (see the module docstring).

    Parameters
    ----------
    store : Neo4jGraphStore
        The connection; every query is a read transaction with its ``query_timeout``.
    sample : int
        Nodes sampled per label and relationships per type.
    count_cap : int
        Counts stop here (a count equal to it means "at least").
    key_scan : int
        Nodes per label whose property keys are read (keys the sample missed are then
        sampled where they are set).
    deadline : float
        Seconds the whole discovery may take.

    Raises
    ------
    GraphStoreError
        The server failed, or the discovery ran past ``deadline`` (naming it).
    """
    if min(sample, count_cap, key_scan) < 1 or not deadline > 0:
        raise InvalidSettingError("sample, count_cap, key_scan must be >= 1; deadline > 0 s")
    start = time.monotonic()

    def run(query: str, **params: Any) -> list[list[Any]]:
        if time.monotonic() - start > deadline:
            raise GraphStoreError(
                f"schema discovery on {store.uri} took over {deadline:g} s (deadline): pass "
                "a mapping written by hand, or a longer deadline"
            )
        return store.read(lambda tx: [r.values() for r in tx.run(query, params)], what="schema")

    labels = _names(run, "CALL db.labels() YIELD label RETURN label", "MATCH (n) WITH n LIMIT "
                    "$cap UNWIND labels(n) AS name RETURN DISTINCT name", count_cap)  # fmt: skip
    types = _names(run, "CALL db.relationshipTypes() YIELD relationshipType RETURN "
                   "relationshipType", "MATCH ()-[r]->() WITH r LIMIT $cap RETURN DISTINCT "
                   "type(r)", count_cap)  # fmt: skip
    label_schemas: dict[str, LabelSchema] = {}
    for label in labels:
        if label in INTERNAL_LABELS:
            continue
        lab = cypher_identifier(label, "node label")
        (count,) = run(f"MATCH (n:{lab}) WITH n LIMIT $cap RETURN count(n)", cap=count_cap)[0]
        maps = [row[0] for row in run(
            f"MATCH (n:{lab}) WITH n LIMIT $k RETURN properties(n)", k=sample)]  # fmt: skip
        schema = LabelSchema(label, count=int(count), sampled=len(maps))
        _tally(schema.properties, maps)
        # Keys too rare for the sample (a rating on 2% of the movies): found over more
        # nodes, each then sampled where it is set.
        keys = run(f"MATCH (n:{lab}) WITH n LIMIT $cap UNWIND keys(n) AS key "
                   "RETURN DISTINCT key", cap=key_scan)  # fmt: skip
        for (key,) in keys:
            if key in schema.properties or not _plain(key):
                continue
            values = run(f"MATCH (n:{lab}) WHERE n.`{key}` IS NOT NULL WITH n LIMIT $k "
                         f"RETURN n.`{key}`", k=sample)  # fmt: skip
            rare: dict[str, PropertySchema] = {}
            _tally(rare, ({key: row[0]} for row in values))
            schema.properties.update(rare)
        label_schemas[label] = schema
    rel_schemas: dict[str, RelationshipSchema] = {}
    for rel_type in types:
        typ = cypher_identifier(rel_type, "relationship type")
        (count,) = run(f"MATCH ()-[r:{typ}]->() WITH r LIMIT $cap RETURN count(r)",
                       cap=count_cap)[0]  # fmt: skip
        rows = run(
            f"MATCH (a)-[r:{typ}]->(b) WITH a, r, b LIMIT $k "
            "RETURN labels(a), labels(b), properties(r)",
            k=sample,
        )
        rel = RelationshipSchema(rel_type, count=int(count))
        for start_labels, end_labels, _ in rows:
            rel.ends[(_ends(start_labels), _ends(end_labels))] += 1
        _tally(rel.properties, (row[2] for row in rows))
        rel_schemas[rel_type] = rel
    return GraphSchema(label_schemas, rel_schemas, count_cap, time.monotonic() - start)


def _plain(key: str) -> bool:
    try:
        cypher_identifier(key)
    except ConfigurationError:
        return False
    return True


def _names(run: Any, procedure: str, sampled: str, cap: int) -> list[str]:
    """Labels or types by the server's procedure, else from a sample."""
    try:
        rows = run(procedure)
    except GraphStoreError as err:
        if "deadline" in str(err):
            raise
        rows = run(sampled, cap=cap)
    return sorted({str(row[0]) for row in rows if isinstance(row[0], str)})
