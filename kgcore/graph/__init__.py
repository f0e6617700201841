"""Graph stores: the protocol, the in-memory default, Neo4j, and triple file loaders.

Names say which way data flows: ``read_triples`` reads a triple file; ``write_triples_to_neo4j``
writes triples into a Neo4j store and ``write_file_to_neo4j`` a triple file into the Neo4j
server a URI names. Nothing here imports the neo4j driver until a Neo4j store is opened.
"""

from kgcore.graph.loaders import read_triples
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.names import normalize_name, rank_names
from kgcore.graph.neo4j_loader import LoadSummary, write_triples_to_neo4j
from kgcore.graph.neo4j_store import (
    DEFAULT_MAPPING,
    LLAMAINDEX_MAPPING,
    GraphMapping,
    Neo4jGraphStore,
)
from kgcore.graph.open import open_store, write_file_to_neo4j
from kgcore.graph.store import GraphStore

__all__ = [
    "DEFAULT_MAPPING",
    "LLAMAINDEX_MAPPING",
    "GraphMapping",
    "GraphStore",
    "InMemoryGraphStore",
    "LoadSummary",
    "Neo4jGraphStore",
    "normalize_name",
    "rank_names",
    "open_store",
    "read_triples",
    "write_file_to_neo4j",
    "write_triples_to_neo4j",
]
