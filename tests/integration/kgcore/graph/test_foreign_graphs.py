"""Graph objects of LangChain and LlamaIndex on a real Bolt server, through
:func:`kgcore.foreign_graphs.as_graph_store`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgcore.foreign_graphs import as_graph_store
from kgcore.graph.neo4j_loader import write_triples_to_neo4j
from kgcore.graph.neo4j_store import LLAMAINDEX_MAPPING, Neo4jGraphStore
from kgcore.types import Triple

TRIPLES = [
    Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    Triple("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
]


class Neo4jGraph:
    """Stands in for langchain-neo4j's ``Neo4jGraph``: a connected driver and a database."""

    def __init__(self, driver: Any, database: str | None) -> None:
        self._driver = driver
        self._database = database


def test_a_neo4j_graph_object_reads_through_its_own_driver(
    make_store: Callable[..., Neo4jGraphStore],
) -> None:
    from tests.support.neo4j_testserver import fresh_mapping

    mapping = fresh_mapping(LLAMAINDEX_MAPPING)
    server = make_store(mapping)
    write_triples_to_neo4j(server, TRIPLES, progress=False)
    adapted = as_graph_store(Neo4jGraph(server.driver, server.database), mapping=mapping)
    assert isinstance(adapted, Neo4jGraphStore) and adapted.driver is server.driver
    assert [tuple(t) for t in adapted.neighbors("Joseph L. Mankiewicz")] == [
        tuple(t) for t in server.neighbors("Joseph L. Mankiewicz")
    ]
    assert adapted.has_node("Cleopatra") and not adapted.has_node("Giant")
