"""The settings FastToG's chain and retriever share, and the engine they build from them.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> fields = FastToGFields(graph=InMemoryGraphStore.from_triples([("a", "r", "b")]))
>>> fields.engine().config.width
3
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgcore.methods.fasttog import FastToG, FastToGConfig
from langchain_fasttog.base import require_graph


class FastToGFields(BaseModel):
    """``graph``, ``config`` and ``textualizer``, and :meth:`engine` built from them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    graph: Any
    config: FastToGConfig = Field(default_factory=FastToGConfig)
    textualizer: Any = None
    method: str = "fasttog"

    def engine(self) -> FastToG:
        return FastToG(require_graph(self.graph), self.config, self.textualizer)
