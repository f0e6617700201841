"""Graph stores: the protocol, the in-memory default, Neo4j, and triple file loaders.

Nothing here imports the neo4j driver until a Neo4j store is opened.
"""

from kgcore.graph.loaders import read_triples
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.names import normalize_name, rank_names
from kgcore.graph.neo4j_loader import LoadSummary, load_triples
from kgcore.graph.neo4j_store import (
    DEFAULT_MAPPING,
    LLAMAINDEX_MAPPING,
    GraphMapping,
    Neo4jGraphStore,
)
from kgcore.graph.open import load_into, open_store
from kgcore.graph.store import GraphStore

__all__ = [
    "DEFAULT_MAPPING",
    "LLAMAINDEX_MAPPING",
    "GraphMapping",
    "GraphStore",
    "InMemoryGraphStore",
    "LoadSummary",
    "Neo4jGraphStore",
    "load_into",
    "load_triples",
    "normalize_name",
    "rank_names",
    "open_store",
    "read_triples",
]
