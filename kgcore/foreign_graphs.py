"""Graphs from LangChain and LlamaIndex as kgcore :class:`~kgcore.graph.store.GraphStore` objects.

Both adapters (``langchain_fasttog``, ``llamaindex_gretriever``) take their ``graph`` through
here, so it lives in the core; it imports neither framework: objects are recognised by their
class names and read through the methods they have (duck typing).

:func:`as_graph_store` takes what users of either framework already hold:

- a kgcore ``GraphStore`` (returned as is);
- LangChain's ``NetworkxEntityGraph`` (its triples, in memory);
- a ``Neo4jGraph`` (langchain-neo4j) or LlamaIndex's ``Neo4jPropertyGraphStore``: a store
  over the same driver and database, so retrieval stays in read transactions. The layout is
  discovered (:func:`~kgcore.graph.open.read_through_schema`): LangChain's
  ``add_graph_documents`` one (:data:`LANGCHAIN_NEO4J_LAYOUT`: ``__Entity__`` nodes named by
  ``id``, the relationship type as the relation), LlamaIndex's
  (:data:`~kgcore.graph.LLAMAINDEX_MAPPING`), or any other graph's labels and properties
  (:class:`~kgcore.graph.label_store.LabelGraphStore`); pass ``mapping`` to skip discovery;
- any other LlamaIndex ``PropertyGraphStore`` (its entity triplets, in memory).

Anything else raises :class:`~kgcore.exceptions.ConfigurationError` naming what is accepted.
Example
-------
>>> store = as_graph_store(InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "JLM")]))
>>> store.neighbors("Cleopatra")[0].relation
'directed_by'
"""

from __future__ import annotations

from typing import Any

from kgcore.exceptions import ConfigurationError, EmptyGraphError
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.store import GraphStore
from kgcore.types import Triple

ACCEPTED = (
    "a kgcore GraphStore (InMemoryGraphStore, Neo4jGraphStore), LangChain's NetworkxEntityGraph, "
    "langchain-neo4j's Neo4jGraph, or a LlamaIndex PropertyGraphStore"
)


def _class_names(value: Any) -> set[str]:
    return {cls.__name__ for cls in type(value).__mro__}


#: ``(node_label, name_property)`` of LangChain's ``Neo4jGraph.add_graph_documents`` layout
#: with ``baseEntityLabel=True``; the relationship type is the relation.
LANGCHAIN_NEO4J_LAYOUT = ("__Entity__", "id")


def _neo4j_over(
    driver: Any, database: str | None, llamaindex_layout: bool, mapping: Any = None
) -> GraphStore:
    from kgcore.graph.neo4j_store import LLAMAINDEX_MAPPING, GraphMapping, Neo4jGraphStore
    from kgcore.graph.open import read_through_schema

    label, name = LANGCHAIN_NEO4J_LAYOUT
    langchain = GraphMapping(label, name, relationship_type=None, relation_property=None)
    layout = LLAMAINDEX_MAPPING if llamaindex_layout else langchain
    # Neo4jGraphStore opens its own driver from a URI; these objects hold a connected driver and
    # no URI or password, so the store is built unconnected and takes their driver over.
    store = Neo4jGraphStore(
        "neo4j://adapted-driver", database=database, mapping=mapping or layout, verify=False
    )
    store._driver.close()
    store._driver = driver
    if mapping is not None:
        return store
    return read_through_schema(store)  # the framework's own layout, or the graph's labels


def _from_triples(triples: list[tuple[str, str, str]], source: str) -> GraphStore:
    if not triples:
        raise EmptyGraphError(f"the {source} holds no triples")
    return InMemoryGraphStore.from_triples(sorted(triples))


def _node_name(node: Any) -> str:
    name = getattr(node, "name", None)
    return str(name) if name is not None else str(node.id)


def _is_chunk(node: Any) -> bool:
    return "ChunkNode" in _class_names(node)


def read_property_graph(graph_store: Any, entities_only: bool = True) -> list[Triple]:
    """Every triplet of a LlamaIndex property graph store as :class:`~kgcore.types.Triple`,
    sorted, read through its own methods (``get``, ``get_triplets``; a
    ``SimplePropertyGraphStore``'s ``graph.get_triplets()``).

    ``entities_only`` drops triplets touching a text chunk (a ``ChunkNode``), keeping the
    knowledge graph itself.
    """
    inner = getattr(graph_store, "graph", None)
    if "SimplePropertyGraphStore" in _class_names(graph_store) and inner is not None:
        triplets = inner.get_triplets()
    else:
        # The generic protocol has no "all triplets" call: ask for those of every node.
        ids = [n.id for n in graph_store.get() if not _is_chunk(n)]
        triplets = graph_store.get_triplets(ids=ids) if ids else []
    triples = {
        Triple(_node_name(h), str(r.label), _node_name(t))
        for h, r, t in triplets
        if not entities_only or not (_is_chunk(h) or _is_chunk(t))
    }
    return sorted(triples)


def as_graph_store(graph: Any, mapping: Any = None) -> GraphStore:
    """``graph`` as a kgcore GraphStore (see the module's list of accepted objects).

    ``mapping`` (a :class:`~kgcore.graph.GraphMapping`) overrides the layout read from a Neo4j
    graph object.
    """
    if isinstance(graph, GraphStore):
        return graph
    names = _class_names(graph)
    if "NetworkxEntityGraph" in names:
        triples = [(str(h), str(r), str(t)) for h, t, r in graph.get_triples()]
        return _from_triples(triples, "NetworkxEntityGraph")
    if "Neo4jGraph" in names and hasattr(graph, "_driver"):
        return _neo4j_over(graph._driver, getattr(graph, "_database", None), False, mapping)
    if "Neo4jPropertyGraphStore" in names and hasattr(graph, "_driver"):
        return _neo4j_over(graph._driver, getattr(graph, "_database", None), True, mapping)
    if "PropertyGraphStore" in names:
        triples = [(t.head, t.relation, t.tail) for t in read_property_graph(graph)]
        return _from_triples(triples, type(graph).__name__)
    raise ConfigurationError(f"graph must be {ACCEPTED}; got {type(graph).__name__}")
