"""FastToG (Fast Think-on-Graph): community-by-community reasoning over a knowledge graph."""

from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.engine import FastToG
from kgcore.methods.fasttog.result import ChainCommunity, FastToGResult

__all__ = ["ChainCommunity", "FastToG", "FastToGConfig", "FastToGResult"]
