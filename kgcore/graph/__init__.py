"""Graph stores: the protocol, the in-memory default and triple file loaders."""

from kgcore.graph.loaders import read_triples
from kgcore.graph.memory import InMemoryGraphStore, normalize_name
from kgcore.graph.store import GraphStore

__all__ = ["GraphStore", "InMemoryGraphStore", "normalize_name", "read_triples"]
