"""The methods the harness runs, by name: the method builder's catalogue
(:mod:`kgcore.builder`), seen from the evaluation side.

Every engine has ``steps(question, topic_entities=None)`` returning a step generator whose
result is a :class:`~kgcore.methods.result.MethodResult`. :func:`make_method` builds one with
:func:`kgcore.builder.build_method`, from the graph store (``None`` for the prompt-only
baselines) and keyword options such as ``width=2``, ``max_community_size=2`` or
``paths.max_hops=0`` (given as a dict's keys). Options are checked against what the method
accepts before anything is made: an unknown option is a
:class:`~kgcore.exceptions.ConfigurationError` naming the accepted ones, while a
``TypeError`` raised inside a constructor is a bug and propagates unchanged. Every method also
takes the per-question cost cap, :data:`BUDGET_OPTIONS` (``max_llm_calls``,
``max_prompt_tokens``: see :mod:`kgcore.methods.kernel.budget`), which sets the engine's
``budget``.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> engine = make_method("tog", InMemoryGraphStore.from_triples([("a", "r", "b")]), width=2)
>>> engine.width
2
>>> method_names()[:3]
['fasttog', 'fasttog-node', 'tog']
>>> make_method("io", None, width=3)
Traceback (most recent call last):
...
kgcore.exceptions.ConfigurationError: bad option for method 'io': width (it takes max_llm...)
"""

from __future__ import annotations

from typing import Any

from kgcore.builder import (
    BUDGET_OPTIONS,
    METHODS,
    MethodSpec,
    build_method,
    check_options,
    fasttog_config,
    get_method,
    keyword_names,
    method_names,
    method_options,
)
from kgcore.graph.store import GraphStore

__all__ = [
    "BUDGET_OPTIONS",
    "METHODS",
    "MethodSpec",
    "check_options",
    "fasttog_config",
    "get_method",
    "keyword_names",
    "make_method",
    "method_names",
    "method_options",
]


def make_method(name: str, store: GraphStore | None = None, **options: Any) -> Any:
    """An engine for ``name`` over ``store``: :func:`kgcore.builder.build_method` with
    ``options`` (a ``preset`` option is the method's preset; an ``embedder`` option, the
    harness's way to give one, its ``embeddings``)."""
    embeddings = options.pop("embedder", None)
    return build_method(name, store, embeddings=embeddings, options=options)
