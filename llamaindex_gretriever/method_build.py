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

from llama_index.core.base.embeddings.base import BaseEmbedding

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore

#: The methods :func:`build_engine` builds.
METHODS = ("cgpe", "fasttog", "tog")


def _fasttog_config(options: dict[str, Any]) -> Any:
    """FastToG's config from ``config`` or ``preset``, then the flat settings in ``options``."""
    from kgcore.methods.fasttog import FastToGConfig

    config, preset = options.pop("config", None), options.pop("preset", None)
    if preset is not None and config is not None:
        raise ConfigurationError(f"give preset={preset!r} or config, not both")
    if config is not None and not isinstance(config, FastToGConfig):
        raise ConfigurationError(f"config must be a FastToGConfig, got {type(config).__name__}")
    base = FastToGConfig.preset(preset) if preset is not None else (config or FastToGConfig())
    return base.with_overrides(**options) if options else base


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
    del llm  # the engines of today take the model at run time
    opts = {k: v for k, v in (options or {}).items() if v is not None}
    if name == "fasttog":
        from kgcore.methods.fasttog import FastToG

        if isinstance(embeddings, BaseEmbedding):
            from llamaindex_gretriever.embeddings import LlamaIndexEmbedder

            embeddings = LlamaIndexEmbedder(embeddings)
        textualizer = opts.pop("textualizer", None)
        return FastToG(graph, _fasttog_config(opts), textualizer, embedder=embeddings)
    if embeddings is not None:
        raise ConfigurationError(f"method {name!r} takes no embedding model")
    if name == "tog":
        from kgcore.methods.tog import ToG

        return ToG(graph, **opts)
    if name == "cgpe":
        from kgcore.methods.cgpe import CGPE

        return CGPE(graph, **opts)
    raise ConfigurationError(f"unknown method {name!r}: one of {', '.join(METHODS)}")
