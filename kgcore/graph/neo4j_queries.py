"""The Cypher a :class:`~kgcore.graph.neo4j_store.Neo4jGraphStore` sends, built once per store.

The only identifiers in a query's text are the label, property and relationship type names of
the :class:`GraphMapping`, validated (:func:`cypher_identifier`) and backquoted when the
mapping is made; names, relations, vectors and limits travel as Bolt parameters, never in the
text. :func:`read_queries` gives every read query of a store by name, so the texts are fixed
for the store's lifetime, and none writes.

Example
-------
>>> queries = read_queries(DEFAULT_MAPPING)
>>> print(queries["has_node"])
MATCH (n:`Entity`) WHERE n.`name` = $name RETURN count(n) > 0 AS found
>>> print(read_queries(LLAMAINDEX_MAPPING)["num_triples"])
MATCH (:`__Entity__`)-[r]->(:`__Entity__`) RETURN count(r) AS count
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgcore.exceptions import ConfigurationError

__all__ = [
    "DEFAULT_MAPPING",
    "LLAMAINDEX_MAPPING",
    "RELATION_VECTOR_LABEL",
    "GraphMapping",
    "cypher_identifier",
    "fulltext_query",
    "index_name",
    "read_queries",
]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: An index name: an identifier (Neo4j), or ArcadeDB's automatic ``Type[property,...]``.
_INDEX_NAME = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(\[[A-Za-z_][A-Za-z0-9_]*(,[A-Za-z_][A-Za-z0-9_]*)*\])?\Z"
)
#: The label of the nodes holding a graph's relation-text vectors (G-Retriever in the database,
#: :mod:`kgcore.gretriever.store_vectors`), one per relation and graph label.
RELATION_VECTOR_LABEL = "KgRelationText"


def cypher_identifier(name: str, what: str = "identifier") -> str:
    """Validate a label, property or relationship type name and return it backquoted.

    Only ``[A-Za-z_][A-Za-z0-9_]*`` is accepted: identifiers are the one part of a query that
    cannot be a parameter, so anything unusual is refused rather than escaped.

    Parameters
    ----------
    name : str
        The identifier.
    what : str
        What it names, for the error message.

    Raises
    ------
    ConfigurationError
        When ``name`` is not a plain identifier.

    Example
    -------
    >>> cypher_identifier("Entity")
    '`Entity`'
    >>> cypher_identifier("x` DETACH DELETE n")
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: invalid Cypher identifier 'x` DETACH DELETE n': ...
    """
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ConfigurationError(
            f"invalid Cypher {what} {name!r}: use letters, digits and underscores, "
            "not starting with a digit"
        )
    return f"`{name}`"


def index_name(name: str, what: str = "index") -> str:
    """Validate an index name (it reaches the server as a parameter of the search procedures).

    An identifier (Neo4j's ``kg_Entity_name_fulltext``) or ArcadeDB's automatic name of an
    index on a type and its properties (``Entity[search]``); nothing else.

    >>> index_name("Entity[search]"), index_name("kg_Entity_name_fulltext")
    ('Entity[search]', 'kg_Entity_name_fulltext')
    >>> index_name("x') YIELD node DETACH DELETE node")
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: invalid index name ...
    """
    if not isinstance(name, str) or not _INDEX_NAME.match(name):
        raise ConfigurationError(
            f"invalid {what} name {name!r}: use letters, digits and underscores, or "
            "ArcadeDB's Type[property] form"
        )
    return name


@dataclass(frozen=True)
class GraphMapping:
    """How triples are laid out in the property graph.

    Nodes carry ``node_label`` and hold their name in ``name_property``. A relation is either
    the relationship's type (``relationship_type=None``, ``relation_property=None``: the
    LlamaIndex layout, ``(:__Entity__)-[:directed_by]->(:__Entity__)``), or a property of
    relationships of one fixed type (the default layout,
    ``(:Entity)-[:RELATION {relation: "directed_by"}]->(:Entity)``), which holds any relation
    name, quotes and spaces included.

    Parameters
    ----------
    node_label : str
        Label of entity nodes; neighbours are only followed to nodes with this label.
    name_property : str
        Node property holding the entity name.
    relationship_type : str or None
        The fixed relationship type whose ``relation_property`` names the relation; ``None``
        to use each relationship's type as the relation.
    relation_property : str or None
        Relationship property naming the relation; ``None`` when the type is the relation.
    extra_labels : tuple of str
        Further labels the loader gives new nodes (LlamaIndex's ``__Node__`` and ``entity``).
    id_property : str or None
        A property the loader sets to the name on new nodes (LlamaIndex's ``id``).
    search_property : str or None
        The node property the full-text index covers (:mod:`kgcore.graph.neo4j_indexes`);
        ``None``: the name itself. ArcadeDB keeps one index per property, so there the loader
        writes a copy of the name under its own property (``"search"``).
    embedding_property : str
        The node property holding a node text's vector (G-Retriever in the database).
    fulltext_index, vector_index : str or None
        The names of the full-text and vector indexes the searches use; ``None``:
        ``kg_<label>_<property>_fulltext`` and ``kg_<label>_<property>_vector``, the names
        :func:`~kgcore.graph.neo4j_indexes.create_indexes` gives them on Neo4j (ArcadeDB names
        its indexes ``Label[property]``).

    Example
    -------
    >>> GraphMapping(node_label="Person", relationship_type="LINK").relation_from_type
    False
    >>> LLAMAINDEX_MAPPING.relation_from_type
    True
    """

    node_label: str = "Entity"
    name_property: str = "name"
    relationship_type: str | None = "RELATION"
    relation_property: str | None = "relation"
    extra_labels: tuple[str, ...] = ()
    id_property: str | None = None
    search_property: str | None = None
    embedding_property: str = "embedding"
    fulltext_index: str | None = None
    vector_index: str | None = None

    def __post_init__(self) -> None:
        cypher_identifier(self.node_label, "node label")
        cypher_identifier(self.name_property, "property name")
        for label in self.extra_labels:
            cypher_identifier(label, "node label")
        if self.id_property is not None:
            cypher_identifier(self.id_property, "property name")
        if (self.relationship_type is None) != (self.relation_property is None):
            raise ConfigurationError(
                "set both relationship_type and relation_property (a fixed type whose property "
                "names the relation), or neither (the relationship type is the relation)"
            )
        if self.relationship_type is not None:
            cypher_identifier(self.relationship_type, "relationship type")
        if self.relation_property is not None:
            cypher_identifier(self.relation_property, "property name")
        if self.search_property is not None:
            cypher_identifier(self.search_property, "property name")
        cypher_identifier(self.embedding_property, "property name")
        for name in (self.fulltext_index, self.vector_index):
            if name is not None:
                index_name(name)

    @property
    def search(self) -> str:
        """The backquoted property the full-text index covers."""
        return f"`{self.search_property or self.name_property}`"

    @property
    def embedding(self) -> str:
        """The backquoted vector property."""
        return f"`{self.embedding_property}`"

    @property
    def fulltext_index_name(self) -> str:
        """The full-text index the name search queries."""
        prop = self.search_property or self.name_property
        return self.fulltext_index or f"kg_{self.node_label}_{prop}_fulltext"

    @property
    def vector_index_name(self) -> str:
        """The vector index the nearest-node search queries."""
        return self.vector_index or f"kg_{self.node_label}_{self.embedding_property}_vector"

    @property
    def relation_from_type(self) -> bool:
        """Whether the relationship type itself is the relation."""
        return self.relationship_type is None

    # -- query fragments (identifiers validated in __post_init__) -------------------------
    @property
    def label(self) -> str:
        """The backquoted node label."""
        return f"`{self.node_label}`"

    @property
    def name(self) -> str:
        """The backquoted name property."""
        return f"`{self.name_property}`"

    def rel_pattern(self, var: str = "r") -> str:
        """``r:`TYPE``` for the fixed-type layout, ``r`` otherwise."""
        return var if self.relationship_type is None else f"{var}:`{self.relationship_type}`"

    def relation_expr(self, var: str = "r") -> str:
        """The Cypher expression giving a relationship's relation name."""
        if self.relation_property is None:
            return f"type({var})"
        return f"{var}.`{self.relation_property}`"


#: The layout written by :mod:`kgcore.graph.neo4j_loader` by default.
DEFAULT_MAPPING = GraphMapping()

#: LlamaIndex's property graph layout (``Neo4jPropertyGraphStore``): entity nodes labelled
#: ``__Entity__`` with a ``name`` property; the relationship type is the relation. The loader
#: also gives new nodes the ``__Node__`` label, an ``id`` equal to the name (LlamaIndex's
#: ``EntityNode`` id) and the ``entity`` label (``EntityNode``'s default type), which
#: ``Neo4jPropertyGraphStore.get_triplets`` needs.
LLAMAINDEX_MAPPING = GraphMapping(
    node_label="__Entity__",
    name_property="name",
    relationship_type=None,
    relation_property=None,
    extra_labels=("__Node__", "entity"),
    id_property="id",
)


def fulltext_query(name: str) -> str:
    """The full-text name search of a label named by the backquoted property ``name``: the
    index's best ``$cap`` names for ``$query`` as one record of ``[name, score]`` pairs."""
    return (
        "CALL db.index.fulltext.queryNodes($index, $query, {limit: $cap}) YIELD node, score\n"
        f"WITH node.{name} AS name, score WHERE name IS NOT NULL\n"
        "RETURN collect([name, score]) AS rows"
    )


def read_queries(mapping: GraphMapping) -> dict[str, str]:
    """Every read query a store of ``mapping`` sends, by name (``"neighbors"``,
    ``"triples_among"``, ``"fulltext"``, ...); the values are parameters (``$names``,
    ``$limit``, ...).

    Names are matched with ``WHERE n.name = node`` rather than an inline map
    ``(n {name: node})``: the same plan on Neo4j, and ArcadeDB 26.10 resolves a variable in an
    inline map whose string value looks like a parameter ("$names") as that parameter, so a
    node named "$names" was not found there. Nodes without a name and relationships without a
    relation (possible in an existing graph) are skipped.
    """
    m = mapping
    label, name, rel = m.label, m.name, m.rel_pattern("r")
    relation = m.relation_expr("r")
    neighbors = (
        "UNWIND $names AS node\n"
        f"MATCH (n:{label}) WHERE n.{name} = node\n"
        f"MATCH (n)-[{rel}]-(m:{label})\n"
        f"WHERE m.{name} IS NOT NULL AND {relation} IS NOT NULL\n"
        f"WITH DISTINCT node, m.{name} AS other, {relation} AS relation,\n"
        "     CASE WHEN startNode(r) = n THEN 0 ELSE 1 END AS direction\n"
        "ORDER BY node, other, relation, direction\n"
        "WITH node, collect([other, relation, direction]) AS rows\n"
    )
    # Full-text candidates: the index's best-scored ``$cap`` by the procedure's own ``limit``
    # option (Neo4j 5 and ArcadeDB alike), so the server reads the names of those only;
    # ordering every match by length on the server read a name per match, and a common word's
    # matches grow with the graph. The client ranks them closest in length first
    # (:mod:`kgcore.graph.neo4j_fulltext`). They come back as one record holding a list of
    # [name, score] pairs: the driver decodes a record far more slowly than a list item (the
    # timings: ``docs/neo4j.md``, "How the costs grow").
    fulltext = fulltext_query(name)
    return {
        "has_node": f"MATCH (n:{label}) WHERE n.{name} = $name RETURN count(n) > 0 AS found",
        "num_nodes": f"MATCH (n:{label}) RETURN count(n) AS count",
        "num_triples": f"MATCH (:{label})-[{rel}]->(:{label}) RETURN count(r) AS count",
        "neighbors": neighbors + "RETURN node, rows",
        "neighbors_limit": neighbors + "RETURN node, rows[..$limit] AS rows",
        "triples_among": (
            "UNWIND $names AS node\n"
            f"MATCH (h:{label}) WHERE h.{name} = node\n"
            f"MATCH (h)-[{rel}]->(t:{label})\n"
            f"WHERE t.{name} IN $names AND {relation} IS NOT NULL\n"
            f"RETURN DISTINCT h.{name} AS head, {relation} AS relation, t.{name} AS tail"
        ),
        "all_names": f"MATCH (n:{label}) RETURN n.{name} AS name ORDER BY name",
        "names_matching": f"MATCH (n:{label}) WHERE n.{name} =~ $pattern RETURN 1 LIMIT 1",
        "fulltext": fulltext,
        "fulltext_variants": fulltext,
        "nearest": (
            "CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score\n"
            f"RETURN node.{name} AS name, score"
        ),
        "vectors": (
            "UNWIND $names AS node\n"
            f"MATCH (n:{label}) WHERE n.{name} = node\n"
            f"RETURN node, n.{m.embedding} AS vector"
        ),
        "relation_vectors": (
            f"MATCH (x:{RELATION_VECTOR_LABEL}) WHERE x.graph = $graph "
            "RETURN x.text AS text, x.embedding AS vector"
        ),
        "names_in": (
            "UNWIND $names AS wanted\n"
            f"MATCH (n:{label}) WHERE n.{name} = wanted\n"
            f"RETURN DISTINCT n.{name} AS name"
        ),
        "name_candidates": (
            f"MATCH (n:{label})\n"
            f"WITH n.{name} AS name WHERE name = $text OR "
            "any(token IN $tokens WHERE toLower(name) CONTAINS token)\n"
            "RETURN name, CASE WHEN name = $text THEN 0 "
            "WHEN toLower(trim(name)) = $lowered THEN 1 ELSE 2 END AS rank\n"
            "ORDER BY rank, name LIMIT $cap"
        ),
    }
