"""Where the LangChain adapters build a kgcore method engine by the method's name (the ToG and
G-Retriever adapters do), so the way a method is built (its config, its embedder) can be
pointed at another builder in one place.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.methods.tog import ToGConfig
>>> store = InMemoryGraphStore.from_triples([("a", "r", "b")])
>>> build_engine("tog", store, None, options={"config": ToGConfig(width=2)}).config.width
2
>>> build_engine("nope", store, None)
Traceback (most recent call last):
...
kgcore.exceptions.ConfigurationError: unknown ...method 'nope'...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgcore.builder import build_method
from kgcore.graph.store import GraphStore

#: The graph methods :func:`build_engine` builds (and, without a graph, the prompt baselines
#: ``io``, ``cot`` and ``cot-sc``).
GRAPH_METHODS = ("cgpe", "fasttog", "gretriever", "tog")


def build_engine(
    name: str,
    graph: GraphStore | None,
    llm: Any,
    *,
    embeddings: Any = None,
    options: Mapping[str, Any] | None = None,
) -> Any:
    """The kgcore engine of method ``name`` over ``graph``.

    Parameters
    ----------
    name : str
        One of :data:`GRAPH_METHODS`, or without a graph ``io``, ``cot`` or ``cot-sc``.
    graph : GraphStore or None
        The knowledge graph (``None`` for the prompt baselines).
    llm : Any
        The model the engine will be run with (today's engines take it at run time, not here).
    embeddings : TextEmbedder, optional
        FastToG's ranking embedder, G-Retriever's embedder (default there: the offline
        all-MiniLM-L6-v2).
    options : mapping, optional
        The engine's own arguments: ``config`` (and ``textualizer``) for FastToG, ToG and
        CGPE; G-Retriever's settings; ``n``, ``temperature``, ``seed`` for CoT-SC.
    """
    del llm  # engines take the model at run time
    opts = {k: v for k, v in (options or {}).items() if v is not None}
    preset = opts.pop("preset", None)
    return build_method(name, graph, embeddings=embeddings, preset=preset, options=opts)
