"""FastToG, ToG and CGPE as LlamaIndex retrievers (``.as_query_engine()``, ``.as_tool()``): see
:mod:`llamaindex_gretriever.method_retriever` for what they return.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.llm import ScriptedLLM
>>> store = InMemoryGraphStore.from_triples([
...     ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
...     ("All About Eve", "directed_by", "Joseph L. Mankiewicz")])
>>> retriever = FastToGRetriever(store, ScriptedLLM(["{All About Eve}"]), max_community_size=2)
>>> engine = retriever.as_query_engine()
>>> response = engine.query("which films share the director of [Cleopatra]")
>>> str(response), [n.node.metadata["kind"] for n in response.source_nodes]
('All About Eve', ['start', 'chain', 'chain'])
"""

from __future__ import annotations

from typing import Any

from llamaindex_gretriever.method_retriever import KGMethodRetriever

__all__ = ["CGPERetriever", "FastToGRetriever", "ToGRetriever"]


class FastToGRetriever(KGMethodRetriever):
    """FastToG with a LlamaIndex LLM: the communities it reasoned over as nodes, the start
    community (``kind="start"``: the topic's facts, the followed paths) among them, those
    that name the answer first.

    Parameters
    ----------
    graph : GraphStore or a LlamaIndex / LangChain graph
        The knowledge graph.
    llm : LLM
        A LlamaIndex LLM (or a kgcore chat model).
    config : FastToGConfig, optional
        Every FastToG setting; or ``preset`` (``"paper"``, ``"metaqa"``), not both.
    embed_model : BaseEmbedding or TextEmbedder, optional
        Ranks the communities (the default ``first_choice="auto"`` chooses by similarity, no
        LLM call); left out, the offline all-MiniLM-L6-v2 when the ``embeddings`` extra is
        installed, else the LLM chooses, with one warning (:mod:`kgcore.builder.embedder`).
    textualizer : CommunityTextualizer or str, optional
        Community-to-text (Triple2Text by default, ``"g2t"``: Graph2Text).
    kwargs :
        :class:`~llamaindex_gretriever.method_retriever.KGMethodRetriever`'s ``k``,
        ``on_unknown_entity``, ``max_llm_calls``, ``max_prompt_tokens``, ``callback_manager``,
        and FastToGConfig fields, flat (``width=2``).
    """

    def __init__(
        self,
        graph: Any,
        llm: Any,
        config: Any = None,
        *,
        preset: str | None = None,
        embed_model: Any = None,
        textualizer: Any = None,
        **kwargs: Any,
    ) -> None:
        options = {"config": config, "preset": preset, "textualizer": textualizer}
        super().__init__("fasttog", graph, llm, embeddings=embed_model, options=options, **kwargs)


class ToGRetriever(KGMethodRetriever):
    """Think-on-Graph with a LlamaIndex LLM: the triples it kept as nodes (as its reasoning
    prompt showed them), those that name the answer first.

    Parameters
    ----------
    graph, llm :
        As for :class:`FastToGRetriever`.
    config : ToGConfig, optional
        Every ToG setting; its fields may be given flat (``width=2``).
    kwargs :
        ``k``, ``on_unknown_entity``, ``max_llm_calls``, ``max_prompt_tokens``,
        ``callback_manager``, and ToGConfig fields.
    """

    def __init__(self, graph: Any, llm: Any, config: Any = None, **kwargs: Any) -> None:
        super().__init__("tog", graph, llm, options={"config": config}, **kwargs)


class CGPERetriever(KGMethodRetriever):
    """CGPE with a LlamaIndex LLM: the explored clue paths as nodes (``A -rel-> B``), those
    that name the answer first.

    Parameters
    ----------
    graph, llm :
        As for :class:`FastToGRetriever`.
    config : CGPEConfig, optional
        Every CGPE setting; its fields may be given flat (``max_depth=2``).
    kwargs :
        ``k``, ``on_unknown_entity``, ``max_llm_calls``, ``max_prompt_tokens``,
        ``callback_manager``, and CGPEConfig fields.
    """

    def __init__(self, graph: Any, llm: Any, config: Any = None, **kwargs: Any) -> None:
        super().__init__("cgpe", graph, llm, options={"config": config}, **kwargs)
