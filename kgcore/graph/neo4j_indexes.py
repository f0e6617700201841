"""The indexes a Neo4j store searches with: names by full text, node texts by vector.

Entity linking on a large graph asks the server's full-text index for candidate names
(``db.index.fulltext.queryNodes``) instead of copying every name into the client, and
G-Retriever in the database asks its vector index for the nodes nearest a question
(``db.index.vector.queryNodes``). :func:`create_indexes` creates both with Neo4j 5's DDL
(``kgqa load --create-indexes`` calls it; both statements are ``IF NOT EXISTS``, so it is safe to
repeat); :func:`index_status` says which of them answer.

Other Bolt servers create indexes their own way. ArcadeDB answers both procedures once its
indexes exist, but creates them only with its SQL, and keeps one automatic index per property,
named ``Type[property]``; give the mapping a property of its own for the full-text index::

    CREATE INDEX ON Entity (search) FULL_TEXT
    CREATE INDEX ON Entity (embedding) LSM_VECTOR
        METADATA {"dimensions": 384, "similarity": "COSINE"}

with ``GraphMapping(search_property="search", fulltext_index="Entity[search]",
vector_index="Entity[embedding]")``.

Example
-------
>>> from kgcore.graph.neo4j_store import DEFAULT_MAPPING
>>> print(fulltext_ddl(DEFAULT_MAPPING))
CREATE FULLTEXT INDEX `kg_Entity_name_fulltext` IF NOT EXISTS FOR (n:`Entity`) ON EACH [n.`name`]
>>> vector_ddl(DEFAULT_MAPPING, 384).splitlines()[0]
'CREATE VECTOR INDEX `kg_Entity_embedding_vector` IF NOT EXISTS FOR (n:`Entity`) ON (n.`embedding`)'
"""

from __future__ import annotations

from dataclasses import dataclass

from kgcore.exceptions import GraphStoreError, InvalidSettingError
from kgcore.graph.neo4j_store import (
    GraphMapping,
    Neo4jGraphStore,
    cypher_identifier,
    server_refusal,
)

__all__ = ["IndexStatus", "create_indexes", "fulltext_ddl", "index_status", "vector_ddl"]

#: Vector dimensions accepted (Neo4j 5 takes 1 to 4096).
MAX_DIMENSIONS = 4096


def fulltext_ddl(mapping: GraphMapping) -> str:
    """Neo4j 5's statement creating the mapping's full-text index (identifiers validated)."""
    name = cypher_identifier(mapping.fulltext_index_name, "index name")
    return (
        f"CREATE FULLTEXT INDEX {name} IF NOT EXISTS FOR (n:{mapping.label}) "
        f"ON EACH [n.{mapping.search}]"
    )


def vector_ddl(mapping: GraphMapping, dimensions: int) -> str:
    """Neo4j 5's statement creating the mapping's vector index of ``dimensions`` (cosine)."""
    if isinstance(dimensions, bool) or not isinstance(dimensions, int):
        raise InvalidSettingError(f"vector dimensions must be an integer, got {dimensions!r}")
    if not 1 <= dimensions <= MAX_DIMENSIONS:
        raise InvalidSettingError(
            f"vector dimensions must be in [1, {MAX_DIMENSIONS}], got {dimensions}"
        )
    name = cypher_identifier(mapping.vector_index_name, "index name")
    return (
        f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{mapping.label}) "
        f"ON (n.{mapping.embedding})\n"
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {dimensions}, "
        "`vector.similarity_function`: 'cosine'}}"
    )


@dataclass(frozen=True)
class IndexStatus:
    """Which search indexes the server answers, by name."""

    fulltext: bool
    vector: bool
    fulltext_index: str
    vector_index: str

    def __str__(self) -> str:
        def word(ok: bool) -> str:
            return "answers" if ok else "missing"

        return (
            f"full-text index {self.fulltext_index!r} {word(self.fulltext)}, "
            f"vector index {self.vector_index!r} {word(self.vector)}"
        )


def index_status(store: Neo4jGraphStore, dimensions: int = 0) -> IndexStatus:
    """Ask each search procedure once: whether the full-text and vector indexes answer
    (the vector probe needs the index's ``dimensions``; 0 skips it)."""
    mapping = store.mapping
    try:
        store.fulltext_names("a", cap=1)
        fulltext = True
    except GraphStoreError:
        fulltext = False
    vector = False
    if dimensions > 0:
        try:
            store.nearest_nodes([1.0] * dimensions, 1)
            vector = True
        except GraphStoreError:
            vector = False
    return IndexStatus(fulltext, vector, mapping.fulltext_index_name, mapping.vector_index_name)


def create_indexes(
    store: Neo4jGraphStore, *, fulltext: bool = True, vector_dimensions: int | None = None
) -> list[str]:
    """Create the store's full-text index and, given ``vector_dimensions``, its vector index.

    Returns what was created (``IF NOT EXISTS``: an existing index counts). The store then
    searches with them (:meth:`~kgcore.graph.neo4j_store.Neo4jGraphStore.refresh_names`).

    Raises
    ------
    GraphStoreError
        When the server refuses the statement (it has no such index type, or creates indexes
        another way: the message says how ArcadeDB does), fails, or gives no answer within the
        store's ``write_timeout``.
    """
    mapping = store.mapping
    wanted: list[tuple[str, str]] = []
    if fulltext:
        wanted.append(("full-text index " + mapping.fulltext_index_name, fulltext_ddl(mapping)))
    if vector_dimensions is not None:
        wanted.append(
            (
                "vector index " + mapping.vector_index_name,
                vector_ddl(mapping, vector_dimensions),
            )
        )
    done: list[str] = []
    for what, statement in wanted:
        try:
            store.write(lambda tx, q=statement: tx.run(q).consume(), what=f"creation of {what}")
        except GraphStoreError as err:
            if server_refusal(err) is None:
                raise  # the server failed or stalled: the message says so
            raise GraphStoreError(
                f"{store.uri} did not create the {what}: {err}. Neo4j 5 creates it with: "
                f"{statement}. ArcadeDB creates indexes with its SQL only (see "
                "kgcore.graph.neo4j_indexes)"
            ) from err
        done.append(what)
    store.refresh_names()
    return done
