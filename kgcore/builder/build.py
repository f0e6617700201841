"""``build_method``: any method, from a graph, optional embeddings, a preset and options.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.llm import ScriptedLLM
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
>>> tog = build_method("tog", store, width=2, options={"max_depth": 1})
>>> tog.config.width, tog.config.max_depth
(2, 1)
>>> tog.run("who directed [Cleopatra]", ScriptedLLM(["Yes {J. Mankiewicz}"])).answer
'J. Mankiewicz'
>>> build_method("tog", store, widht=2)
Traceback (most recent call last):
...
kgcore.exceptions.ConfigurationError: bad option for method 'tog': widht (did you mean 'width'?) ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgcore.builder.catalogue import get_method
from kgcore.builder.embedder import method_embedder
from kgcore.builder.settings import fold_options, merged_options
from kgcore.exceptions import ConfigurationError


def build_method(
    name: str,
    graph: Any = None,
    *,
    embeddings: Any = None,
    preset: str | None = None,
    options: Mapping[str, Any] | None = None,
    **flat: Any,
) -> Any:
    """The engine of method ``name`` (a :class:`~kgcore.methods.base.StepMethod`: run it with
    ``engine.run(question, llm)`` or ``await engine.arun(question, llm)``).

    Parameters
    ----------
    name : str
        A method of :func:`~kgcore.builder.method_names`: ``fasttog``, ``fasttog-node``,
        ``tog``, ``cgpe``, ``gretriever``, ``gretriever-gnn``, ``io``, ``cot``, ``cot-sc``,
        ``echo``.
    graph : GraphStore, optional
        The knowledge graph (a LangChain or LlamaIndex graph is adapted, see
        :func:`kgcore.foreign_graphs.as_graph_store`); the prompt-only methods need none.
    embeddings : optional
        A kg-retrievers ``TextEmbedder``, a LangChain ``Embeddings`` or a LlamaIndex
        ``BaseEmbedding``. Left out: the offline all-MiniLM-L6-v2 when the ``embeddings``
        extra is installed, for the methods that read embeddings (FastToG's ``"auto"``
        choices and topic facts, G-Retriever); see :mod:`kgcore.builder.embedder`.
    preset : str, optional
        A named preset (FastToG: ``"paper"``, ``"metaqa"``); the options override it.
    options : mapping, optional
        Options by name, as ``kgqa --set`` gives them: the method's settings, flat
        (``width=2``, ``max_community_size=2``) or dotted (``paths.max_hops=0``), its config
        object as ``config``, and the cost cap (``max_llm_calls``, ``max_prompt_tokens``).
    **flat :
        More options, as keywords (the same name in ``options`` with another value is an
        error).

    Raises
    ------
    ConfigurationError
        An unknown method or option (naming the ones accepted), a bad value
        (:class:`~kgcore.exceptions.InvalidSettingError`), a missing graph, embeddings given
        to a method that reads none.

    Notes
    -----
    The engine holds no model: the same engine runs with any ``ChatLLM`` (the CLI's, a
    LangChain or a LlamaIndex model through the adapters' bridges), sync or async.
    """
    spec = get_method(name)
    folded, budget = fold_options(name, merged_options(options, flat), preset=preset)
    store = None
    if spec.needs_graph:
        if graph is None:
            raise ConfigurationError(f"method {name!r} needs a knowledge graph")
        from kgcore.foreign_graphs import as_graph_store

        store = as_graph_store(graph)
    if spec.embeddings != "none" or embeddings is not None:
        embedder = method_embedder(spec, folded, embeddings)
        if spec.embeddings != "none":
            folded["embedder"] = embedder
    engine = spec.factory(store, **folded)
    if budget is not None:
        engine.budget = budget
    return engine
