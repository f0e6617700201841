"""The Cypher a :class:`~kgcore.graph.label_store.LabelGraphStore` sends, built once per store.

Labels cannot be parameters, so each query is written per entity label of the
:class:`~kgcore.graph.label_mapping.LabelMapping` (identifiers validated and backquoted there);
names, limits and tokens are parameters. Another node's label is the first entity label it
carries, in the mapping's order, and its name the property that label is named by.

Example
-------
>>> from kgcore.graph.label_mapping import LabelMapping, LabelSpec
>>> mapping = LabelMapping((LabelSpec("Person", "name", ("born",)),
...                         LabelSpec("Movie", "title")), ("ACTED_IN",))
>>> print(label_queries(mapping)["Person"]["has_node"])
MATCH (n:`Person`) WHERE n.`name` = $name RETURN count(n) > 0 AS found
"""

from __future__ import annotations

from kgcore.graph.label_mapping import LabelMapping
from kgcore.graph.neo4j_queries import GraphMapping, fulltext_query

__all__ = ["fulltext_index_name", "label_queries", "name_index_mapping"]


def name_index_mapping(label: str, name_property: str) -> GraphMapping:
    """A label's names as the :class:`GraphMapping` whose full-text index (its name and its
    DDL, :func:`~kgcore.graph.neo4j_indexes.fulltext_ddl`) ``kgqa index`` creates."""
    return GraphMapping(node_label=label, name_property=name_property)


def fulltext_index_name(label: str, name_property: str) -> str:
    """The full-text index ``kgqa index`` creates on a label's names (Neo4j).

    >>> fulltext_index_name("Movie", "title")
    'kg_Movie_title_fulltext'
    """
    return name_index_mapping(label, name_property).fulltext_index_name


def _other_label(mapping: LabelMapping, var: str) -> str:
    cases = " ".join(f"WHEN {var}:`{s.label}` THEN '{s.label}'" for s in mapping.labels)
    return f"CASE {cases} END"


def _other_name(mapping: LabelMapping, var: str, label_var: str) -> str:
    cases = " ".join(f"WHEN '{s.label}' THEN {var}.`{s.name_property}`" for s in mapping.labels)
    return f"CASE {label_var} {cases} END"


def _filled(key: str) -> str:
    return f"sum(CASE WHEN n.`{key}` IS NULL THEN 0 ELSE 1 END)"


def label_queries(mapping: LabelMapping) -> dict[str, dict[str, str]]:
    """Every read query, by entity label and then by name (``"neighbors"``, ``"has_node"``,
    ``"names_in"``, ``"all_names"``, ``"scan"``, ``"fulltext"``, ``"count"``, ...)."""
    types = "|".join(f"`{t}`" for t in mapping.relationship_types)
    rel = f"r:{types}" if types else "r"
    other_label = _other_label(mapping, "m")
    other_name = _other_name(mapping, "m", "ml")
    queries: dict[str, dict[str, str]] = {}
    for spec in mapping.labels:
        label, name = f"`{spec.label}`", f"`{spec.name_property}`"
        facts = ", ".join(f"n.`{key}`" for key in spec.facts)
        neighbors = (
            "UNWIND $names AS node\n"
            f"MATCH (n:{label}) WHERE n.{name} = node\n"
            f"OPTIONAL MATCH (n)-[{rel}]-(m)\n"
            f"WITH node, n, r, m, {other_label} AS ml\n"
            f"WITH node, n, collect(DISTINCT CASE WHEN ml IS NULL THEN null ELSE\n"
            f"  [{other_name}, ml, type(r), CASE WHEN startNode(r) = n THEN 0 ELSE 1 END,"
            " properties(r)]"
            " END) AS rows\n"
            f"RETURN node, [{facts}] AS facts, rows"
        )
        queries[spec.label] = {
            "neighbors": neighbors,
            "has_node": f"MATCH (n:{label}) WHERE n.{name} = $name RETURN count(n) > 0 AS found",
            "names_in": (
                f"MATCH (n:{label}) WHERE n.{name} IN $names RETURN DISTINCT n.{name} AS name"
            ),
            "all_names": f"MATCH (n:{label}) RETURN n.{name} AS name",
            "scan": (
                f"MATCH (n:{label}) WITH n.{name} AS name WHERE name = $text OR "
                "any(token IN $tokens WHERE toLower(name) CONTAINS token)\n"
                "RETURN name LIMIT $cap"
            ),
            "fulltext": fulltext_query(name),
            "count": f"MATCH (n:{label}) RETURN count(n) AS count",
            "facts_count": (
                f"MATCH (n:{label}) RETURN "
                + (" + ".join(_filled(key) for key in spec.facts) or "0")
                + " AS count"
            ),
            "relationships": (
                f"MATCH (n:{label})-[{rel}]->(m) WHERE {other_label} IS NOT NULL "
                "RETURN count(r) AS count"
            ),
        }
    return queries
