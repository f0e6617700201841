"""Load triple files into Neo4j: batched, parameterised, idempotent.

Triples are sent in batches as one parameter (``UNWIND $rows AS row``), each batch in one managed
write transaction (:meth:`~kgcore.graph.neo4j_store.Neo4jGraphStore.write`: retried on transient
errors, with the store's deadline ``write_timeout``), and written with ``MERGE``, so loading
the same file twice adds nothing the second time. The whole source is validated before anything
is written (a malformed line 12,001 leaves the database untouched); if the server fails, stalls
(no answer within ``write_timeout``) or dies part-way, :class:`~kgcore.exceptions.GraphStoreError`
says how many triples were written and that running the same load again resumes (``MERGE``
skips what is there). A uniqueness constraint
on the node name (or, where the server refuses it, an index) is created first so each ``MERGE``
is an index look-up. The summary reports what the server says it created.

In the default layout (:data:`~kgcore.graph.neo4j_store.DEFAULT_MAPPING`) the relation is a
property of a fixed relationship type, so any relation name loads. In a layout whose relation is
the relationship type (:data:`~kgcore.graph.neo4j_store.LLAMAINDEX_MAPPING`) the relation has to
appear in the query text: relation names must then be plain identifiers, and others are refused.

Example
-------
>>> from kgcore.graph.neo4j_store import Neo4jGraphStore
>>> store = Neo4jGraphStore("bolt://127.0.0.1:7687", "neo4j", "pw")  # doctest: +SKIP
>>> summary = write_triples_to_neo4j(store, "../shared/data/metaqa/kb.txt")  # doctest: +SKIP
>>> print(summary)  # doctest: +SKIP
read 133,582 triples in 27 batches into bolt://127.0.0.1:7687: created 43,234 nodes, ...
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from kgcore.exceptions import (
    ConfigurationError,
    GraphLoadError,
    GraphStoreError,
    InvalidSettingError,
)
from kgcore.graph.loaders import read_triples
from kgcore.graph.neo4j_store import (
    GraphMapping,
    Neo4jGraphStore,
    cypher_identifier,
    server_refusal,
)
from kgcore.types import Triple

__all__ = [
    "LoadSummary",
    "ensure_schema",
    "validate_source",
    "write_queries",
    "write_triples_to_neo4j",
]


@dataclass
class LoadSummary:
    """What a load wrote, as counted by the server.

    Example
    -------
    >>> s = LoadSummary(uri="bolt://x", triples_read=10, batches=1, nodes_created=4,
    ...                 relationships_created=10, seconds=0.5)
    >>> s.triples_per_s
    20.0
    """

    uri: str
    database: str | None = None
    triples_read: int = 0
    batches: int = 0
    nodes_created: int = 0
    relationships_created: int = 0
    properties_set: int = 0
    labels_added: int = 0
    seconds: float = 0.0
    schema: list[str] = field(default_factory=list)
    #: The bookmarks of the load's writes: a store in another process given them
    #: (``Neo4jGraphStore(bookmarks=...)``) reads only from cluster members that have them.
    bookmarks: list[str] = field(default_factory=list)

    @property
    def triples_per_s(self) -> float:
        """Triples read per second of wall time."""
        return self.triples_read / self.seconds if self.seconds > 0 else 0.0

    def __str__(self) -> str:
        db = f" (database {self.database})" if self.database else ""
        schema = f"; schema: {', '.join(self.schema)}" if self.schema else ""
        return (
            f"read {self.triples_read:,} triples in {self.batches:,} batches into {self.uri}{db}: "
            f"created {self.nodes_created:,} nodes and {self.relationships_created:,} "
            f"relationships ({self.properties_set:,} properties set) in {self.seconds:.1f} s "
            f"({self.triples_per_s:,.0f} triples/s){schema}"
        )


#: How :func:`write_triples_to_neo4j` writes (``mode``).
LOAD_MODES = ("merge", "create")


def _node_merge(mapping: GraphMapping, var: str, value: str) -> str:
    """``MERGE`` of one endpoint with all its labels, setting the id property and the
    full-text property (copies of the name, where the mapping has them) on creation.

    The extra labels are part of the ``MERGE`` pattern rather than added by ``SET``: adding a
    label to an existing node is refused by ArcadeDB under a uniqueness constraint, and every
    node this loader writes carries all the labels anyway.
    """
    labels = mapping.label + "".join(
        f":{cypher_identifier(label, 'node label')}" for label in mapping.extra_labels
    )
    text = f"MERGE ({var}:{labels} {{{mapping.name}: {value}}})"
    copies = [
        cypher_identifier(prop, "property name")
        for prop in (mapping.id_property, mapping.search_property)
        if prop is not None and prop != mapping.name_property
    ]
    if copies:
        sets = ", ".join(f"{var}.{prop} = {value}" for prop in copies)
        text += f" ON CREATE SET {sets}"
    return text


def write_queries(mapping: GraphMapping, relation: str | None = None) -> str:
    """The batched ``MERGE`` query for a mapping.

    Parameters
    ----------
    mapping : GraphMapping
        The layout.
    relation : str, optional
        For layouts whose relationship type is the relation: the relation of this batch, which
        must be a plain identifier (it becomes the backquoted type).

    Example
    -------
    >>> from kgcore.graph.neo4j_store import DEFAULT_MAPPING
    >>> print(write_queries(DEFAULT_MAPPING))
    UNWIND $rows AS row
    MERGE (h:`Entity` {`name`: row[0]})
    MERGE (t:`Entity` {`name`: row[2]})
    MERGE (h)-[r:`RELATION` {`relation`: row[1]}]->(t)
    """
    lines = [
        "UNWIND $rows AS row",
        _node_merge(mapping, "h", "row[0]"),
        _node_merge(mapping, "t", "row[2]"),
    ]
    if mapping.relation_from_type:
        if relation is None:
            raise ConfigurationError("this mapping needs the relation of the batch")
        rel_type = cypher_identifier(relation, "relationship type (relation name)")
        lines.append(f"MERGE (h)-[r:{rel_type}]->(t)")
    else:
        prop = cypher_identifier(mapping.relation_property or "", "property name")
        rel_type = cypher_identifier(mapping.relationship_type or "", "relationship type")
        lines.append(f"MERGE (h)-[r:{rel_type} {{{prop}: row[1]}}]->(t)")
    return "\n".join(lines)


def create_query(mapping: GraphMapping, relation: str | None = None) -> str:
    """The one query of a ``mode="create"`` batch: the batch's distinct names (``$names``)
    merged as nodes, then one relationship created per row of ``$rows``, ``[head position,
    relation, tail position]`` in ``$names``: the nodes just merged are reused, so no
    relationship costs a name look-up.

    Example
    -------
    >>> from kgcore.graph.neo4j_store import DEFAULT_MAPPING
    >>> print(create_query(DEFAULT_MAPPING))
    UNWIND $names AS name
    MERGE (n:`Entity` {`name`: name})
    WITH collect(n) AS nodes
    UNWIND $rows AS row
    WITH nodes[row[0]] AS h, nodes[row[2]] AS t, row
    CREATE (h)-[r:`RELATION` {`relation`: row[1]}]->(t)
    """
    lines = [
        "UNWIND $names AS name",
        _node_merge(mapping, "n", "name"),
        "WITH collect(n) AS nodes",
        "UNWIND $rows AS row",
        "WITH nodes[row[0]] AS h, nodes[row[2]] AS t, row",
    ]
    if mapping.relation_from_type:
        if relation is None:
            raise ConfigurationError("this mapping needs the relation of the batch")
        lines.append(f"CREATE (h)-[r:{cypher_identifier(relation, 'relationship type')}]->(t)")
    else:
        prop = cypher_identifier(mapping.relation_property or "", "property name")
        rel_type = cypher_identifier(mapping.relationship_type or "", "relationship type")
        lines.append(f"CREATE (h)-[r:{rel_type} {{{prop}: row[1]}}]->(t)")
    return "\n".join(lines)


def positions(rows: Sequence[Sequence[str]]) -> tuple[list[str], list[list[Any]]]:
    """A ``mode="create"`` batch's parameters: its distinct names (sorted) and its distinct
    triples as ``[head position, relation, tail position]`` in them.

    >>> positions([("Heat", "directed_by", "Michael Mann"), ("Heat", "year", "1995")])
    (['1995', 'Heat', 'Michael Mann'], [[1, 'directed_by', 2], [1, 'year', 0]])
    """
    names = sorted({name for row in rows for name in (row[0], row[2])})
    where = {name: number for number, name in enumerate(names)}
    distinct = dict.fromkeys((row[0], row[1], row[2]) for row in rows)
    return names, [[where[h], r, where[t]] for h, r, t in distinct]


def ensure_schema(store: Neo4jGraphStore) -> list[str]:
    """Create a uniqueness constraint on the node name, or an index where that is refused.

    Both statements use ``IF NOT EXISTS``, so this is safe to repeat. Returns what was asked
    for and how it went.

    Raises
    ------
    GraphStoreError
        The server failed or gave no answer within the store's ``write_timeout`` (a statement
        the server refuses is not an error: the index is tried next).

    Example
    -------
    >>> ensure_schema(store)  # doctest: +SKIP
    ['constraint kg_Entity_name_unique']
    """
    m = store.mapping
    base = f"kg_{m.node_label}_{m.name_property}"
    constraint = (
        f"CREATE CONSTRAINT {cypher_identifier(base + '_unique')} IF NOT EXISTS "
        f"FOR (n:{m.label}) REQUIRE n.{m.name} IS UNIQUE"
    )
    index = (
        f"CREATE INDEX {cypher_identifier(base + '_index')} IF NOT EXISTS "
        f"FOR (n:{m.label}) ON (n.{m.name})"
    )
    done: list[str] = []
    for kind, statement in (("constraint", constraint), ("index", index)):
        name = f"{base}_{'unique' if kind == 'constraint' else 'index'}"
        try:
            store.write(lambda tx, q=statement: tx.run(q).consume(), what=f"{kind} {name}")
            done.append(f"{kind} {name}")
            return done
        except GraphStoreError as err:
            code = server_refusal(err)
            if code is None:
                raise  # the server failed or stalled: not a refusal
            done.append(f"{kind} refused ({code})")
    warnings.warn(
        f"could not create a constraint or index on {m.node_label}.{m.name_property} at "
        f"{store.uri}; MERGE will scan all nodes and loading will be slow",
        stacklevel=2,
    )
    return done


def _check_relation(relation: str, mapping: GraphMapping) -> None:
    try:
        cypher_identifier(relation, "relationship type")
    except Exception as err:
        raise GraphLoadError(
            f"relation {relation!r} cannot be a relationship type in the "
            f"{mapping.node_label} layout; use the default mapping, which "
            "stores the relation as a property"
        ) from err


def validate_source(
    source: str | Path | Iterable[Sequence[str]],
    *,
    fmt: str | None = None,
    mapping: GraphMapping | None = None,
    progress: bool = False,
) -> int:
    """Read the whole source once and return its number of triples, writing nothing.

    Raises :class:`~kgcore.exceptions.GraphLoadError` (file and line) on the first bad line,
    or on a relation ``mapping`` cannot store.

    Example
    -------
    >>> validate_source([("Heat", "directed_by", "Michael Mann")])
    1
    """
    triples = (
        read_triples(source, fmt=fmt, progress=progress)
        if isinstance(source, str | Path)
        else source
    )
    count = 0
    for row in triples:
        triple = Triple(*row)
        if mapping is not None and mapping.relation_from_type:
            _check_relation(str(triple.relation), mapping)
        count += 1
    return count


def _resume_hint(summary: LoadSummary, mode: str = "merge") -> str:
    if not summary.triples_read:
        return "No triples were written; run the same load again once the server answers"
    batches = f"{summary.batches:,} batch{'' if summary.batches == 1 else 'es'}"
    written = f"{summary.triples_read:,} triples ({batches}) were written before the failure"
    if mode == "create":
        return (
            f"{written}; mode='create' does not skip them, so resume with mode='merge' (which does)"
        )
    return f"{written}; loading is idempotent (MERGE), so run the same load again to resume"


def _batches(triples: Iterable[Sequence[str]], size: int) -> Iterator[list[Sequence[str]]]:
    iterator = iter(triples)
    while batch := list(islice(iterator, size)):
        yield batch


def write_triples_to_neo4j(
    store: Neo4jGraphStore,
    source: str | Path | Iterable[Sequence[str]],
    *,
    batch_size: int = 5000,
    fmt: str | None = None,
    create_schema: bool = True,
    progress: bool = True,
    validate: bool = True,
    mode: str = "merge",
) -> LoadSummary:
    """Write triples into the store's server with batched ``MERGE``.

    Parameters
    ----------
    store : Neo4jGraphStore
        Where to write (its URI, database and :class:`GraphMapping`).
    source : path or iterable of (head, relation, tail)
        A triple file (formats of :func:`kgcore.graph.loaders.read_triples`) or triples.
    batch_size : int
        Triples per query and per write transaction.
    fmt : str, optional
        The file format, when the suffix does not tell it.
    create_schema : bool
        Create the name constraint/index first (:func:`ensure_schema`).
    progress : bool
        Show a progress bar.
    validate : bool
        Read the whole source first (:func:`validate_source`), so a bad line is reported
        before anything is written. An iterable source is held in memory for the two passes.
    mode : {"merge", "create"}
        ``"merge"`` (the default) merges every node and relationship: a rerun adds nothing,
        so a load cut short is resumed by running it again. ``"create"`` merges each batch's
        distinct names and creates its relationships in one query (:func:`create_query`), which is
        faster, for triples not yet in the graph: a rerun writes them twice.

    Returns
    -------
    LoadSummary
        What the server reports it created; a rerun reports nothing created.

    Raises
    ------
    GraphLoadError
        A malformed file, or a relation that cannot be a relationship type in this layout.
    GraphStoreError
        The server failed, or a write (the schema statement or one batch) got no answer within
        the store's ``write_timeout``: the message names the URI, how many triples were
        written and how to resume.

    Example
    -------
    >>> triples = [("Heat", "directed_by", "Michael Mann")]
    >>> summary = write_triples_to_neo4j(store, triples)  # doctest: +SKIP
    >>> summary.relationships_created  # doctest: +SKIP
    1
    """
    if batch_size < 1:
        raise InvalidSettingError("batch_size must be >= 1")
    mapping = store.mapping
    if mode not in LOAD_MODES:
        raise InvalidSettingError(f"mode must be one of {', '.join(LOAD_MODES)}, got {mode!r}")
    if validate:
        if not isinstance(source, str | Path):
            source = list(source)
        validate_source(source, fmt=fmt, mapping=mapping)
    summary = LoadSummary(uri=store.uri, database=store.database)
    start = time.perf_counter()
    if create_schema:
        try:
            summary.schema = ensure_schema(store)
        except GraphStoreError as err:
            raise GraphStoreError(
                f"loading into Neo4j at {store.uri} failed: {err}. {_resume_hint(summary)}"
            ) from err
    if isinstance(source, str | Path):
        triples: Iterable[Sequence[str]] = read_triples(source, fmt=fmt, progress=progress)
        bar = None
    else:
        triples = source
        bar = tqdm(desc="writing triples", unit=" triples", disable=not progress)
    fixed_query = None if mapping.relation_from_type else write_queries(mapping)
    fixed_create = None if mapping.relation_from_type else create_query(mapping)

    def write_created(tx: Any, batch: list[list[str]]) -> list[Any]:
        if fixed_create is not None:
            names, rows = positions(batch)
            return [tx.run(fixed_create, {"names": names, "rows": rows}).consume().counters]
        by_relation: dict[str, list[list[str]]] = {}
        for row in batch:
            by_relation.setdefault(row[1], []).append(row)
        counters = []
        for relation, group in sorted(by_relation.items()):
            names, rows = positions(group)
            query = create_query(mapping, relation)
            counters.append(tx.run(query, {"names": names, "rows": rows}).consume().counters)
        return counters

    def write(tx: Any, batch: list[list[str]]) -> list[Any]:
        if mode == "create":
            return write_created(tx, batch)
        if fixed_query is not None:
            return [tx.run(fixed_query, {"rows": batch}).consume().counters]
        by_relation: dict[str, list[list[str]]] = {}
        for row in batch:
            by_relation.setdefault(row[1], []).append(row)
        return [
            tx.run(write_queries(mapping, relation), {"rows": rows}).consume().counters
            for relation, rows in sorted(by_relation.items())
        ]

    try:
        for number, raw in enumerate(_batches(triples, batch_size), start=1):
            batch = [[str(h), str(r), str(t)] for h, r, t in (Triple(*x) for x in raw)]
            if mapping.relation_from_type:
                for _, relation, _ in batch:
                    _check_relation(relation, mapping)
            # Each batch is one write transaction with the store's deadline (write_timeout).
            for counters in store.write(write, batch, what=f"write of batch {number:,}"):
                summary.nodes_created += counters.nodes_created
                summary.relationships_created += counters.relationships_created
                summary.properties_set += counters.properties_set
                summary.labels_added += counters.labels_added
            summary.triples_read += len(batch)
            summary.batches += 1
            if bar is not None:
                bar.update(len(batch))
    except GraphStoreError as err:
        raise GraphStoreError(
            f"loading into Neo4j at {store.uri} failed: {err}. {_resume_hint(summary, mode)}"
        ) from err
    except GraphLoadError as err:
        if not summary.triples_read:
            raise
        raise GraphLoadError(f"{err}. {_resume_hint(summary, mode)}") from err
    finally:
        if bar is not None:
            bar.close()
    summary.seconds = time.perf_counter() - start
    summary.bookmarks = store.bookmarks()
    store.refresh_names()
    return summary
