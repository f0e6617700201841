"""The one place the LlamaIndex method retrievers build a kgcore engine (FastToG, ToG, CGPE),
by the method's name, so the way a method is built can be pointed at another builder in one
place.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("a", "r", "b")])
>>> build_engine("fasttog", store, None, options={"preset": "paper", "width": 2}).config.width
2
>>> build_engine("cgpe", store, None, options={"max_depth": 1}).config.max_depth
1
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgcore.builder import build_method
from kgcore.graph.store import GraphStore

#: The methods :func:`build_engine` builds.
METHODS = ("cgpe", "fasttog", "tog")


def build_engine(
    name: str,
    graph: GraphStore,
    llm: Any,
    *,
    embeddings: Any = None,
    options: Mapping[str, Any] | None = None,
) -> Any:
    """The kgcore engine of method ``name`` (one of :data:`METHODS`) over ``graph``.

    Parameters
    ----------
    name : str
        ``"fasttog"``, ``"tog"`` or ``"cgpe"``.
    graph : GraphStore
        The knowledge graph.
    llm : Any
        The model the engine will be run with (today's engines take it at run time, not here).
    embeddings : BaseEmbedding or TextEmbedder, optional
        FastToG's ranking embedder (a LlamaIndex embedding model is wrapped).
    options : mapping, optional
        ``config`` and the config's fields given flat (they override it); for FastToG also
        ``preset`` (not with ``config``) and ``textualizer``. ``None`` values are left out.
    """
    del llm  # engines take the model at run time
    opts = {k: v for k, v in (options or {}).items() if v is not None}
    preset = opts.pop("preset", None)
    return build_method(name, graph, embeddings=embeddings, preset=preset, options=opts)
