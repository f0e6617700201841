"""The kgcore methods (FastToG, ToG, CGPE) in LlamaIndex: a retriever whose nodes are what the
method reasoned over, a query engine that answers with the method, and its tool.

:class:`KGMethodRetriever` runs the method with a LlamaIndex LLM and returns its evidence
(:meth:`~kgcore.methods.result.MethodResult.evidence`) as ``NodeWithScore``: the facts that
name the answer first, scored 1.0 (the others 0.0), every metadata key hidden from the LLM and
the embedder. It plugs into ``RetrieverQueryEngine`` (your LLM then answers from the nodes);
:class:`KGMethodQueryEngine` gives the method's own answer instead, with the nodes as its
sources, from one run. :class:`FastToGRetriever`, :class:`ToGRetriever` and
:class:`CGPERetriever` are it for one method each (``.as_query_engine()``, ``.as_tool()``).

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.llm import ScriptedLLM
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
>>> retriever = KGMethodRetriever("tog", store, ScriptedLLM(["Yes {J. Mankiewicz}"]))
>>> response = retriever.as_query_engine().query("who directed [Cleopatra]")
>>> str(response), response.source_nodes[0].node.text, response.source_nodes[0].score
('J. Mankiewicz', '(Cleopatra, directed by, J. Mankiewicz)', 1.0)
>>> store = InMemoryGraphStore.from_triples([
...     ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
...     ("All About Eve", "directed_by", "Joseph L. Mankiewicz")])
>>> retriever = FastToGRetriever(store, ScriptedLLM(["{All About Eve}"]), max_community_size=2)
>>> response = retriever.as_query_engine().query("which films share the director of [Cleopatra]")
>>> str(response), [n.node.metadata["kind"] for n in response.source_nodes]
('All About Eve', ['start', 'chain', 'chain'])
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.response.schema import Response
from llama_index.core.callbacks import CallbackManager
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.core.tools import QueryEngineTool

from kgcore.agent_text import answer_text, name_as_topic, unknown_entity_text
from kgcore.builder import build_method
from kgcore.concurrency import InFlightLimit, run_graph_work
from kgcore.exceptions import ConfigurationError, EntityNotFoundError, InvalidSettingError
from kgcore.foreign_graphs import as_graph_store
from kgcore.llm.protocol import RetryPolicy, retry_policy
from kgcore.methods.kernel import Budget
from kgcore.methods.result import MethodResult
from llamaindex_gretriever.agent_tools import METHOD_TOOL_DESCRIPTION
from llamaindex_gretriever.method_llm import as_chat_llm
from llamaindex_gretriever.retriever import UNKNOWN_ENTITY_MODES, not_found_node

__all__ = [
    "CGPERetriever",
    "FastToGRetriever",
    "KGMethodQueryEngine",
    "KGMethodRetriever",
    "ToGRetriever",
    "evidence_nodes",
]


def evidence_nodes(result: MethodResult, k: int | None = None) -> list[NodeWithScore]:
    """A method result's evidence as scored nodes (1.0: names the answer), at most ``k``."""
    nodes = []
    for index, evidence in enumerate(result.evidence()[:k]):
        meta = dict(evidence.metadata)
        key = f"{result.question}\x00{index}\x00{evidence.text}".encode()
        node = TextNode(
            id_=f"{result.method}-{hashlib.sha256(key).hexdigest()[:32]}",
            text=evidence.text,
            metadata=meta,
            excluded_llm_metadata_keys=list(meta),
            excluded_embed_metadata_keys=list(meta),
        )
        nodes.append(NodeWithScore(node=node, score=1.0 if meta["supports_answer"] else 0.0))
    return nodes


class KGMethodRetriever(BaseRetriever):
    """A kgcore method run with a LlamaIndex LLM; its evidence as nodes.

    LlamaIndex's ``BaseRetriever`` contract; its twin for LangChain is
    :class:`langchain_fasttog.KGMethodRetriever`.

    Parameters
    ----------
    method : {"fasttog", "tog", "cgpe"}
        The method.
    graph : GraphStore or a LlamaIndex / LangChain graph
        The knowledge graph (adapted by :func:`kgcore.foreign_graphs.as_graph_store`).
    llm : LLM
        A LlamaIndex LLM (or a kgcore chat model such as ``ScriptedLLM``).
    embeddings : BaseEmbedding or TextEmbedder, optional
        FastToG's ranking model.
    options : mapping, optional
        The method's ``config`` (FastToG: also ``preset``, ``textualizer``).
    k : int, optional
        At most ``k`` nodes.
    on_unknown_entity : {"message", "empty", "raise"}
        A topic entity not in the graph: one node naming it and the closest names, none, or
        :class:`~kgcore.exceptions.EntityNotFoundError`.
    max_llm_calls, max_prompt_tokens : int, optional
        The cost cap of each question (:class:`~kgcore.methods.kernel.Budget`).
    llm_timeout : float, optional
        Seconds each model call may take (the CLI's ``--llm-timeout``; default: the retry
        policy's, 120 s); replaces ``retry``'s ``timeout``.
    retry : RetryPolicy, optional
        Attempts, backoff and the cap on abandoned calls of the model calls
        (:class:`~kgcore.llm.protocol.RetryPolicy`; default: the package's policy).
    max_concurrency : int, optional
        Questions this retriever runs at once at most (``None``: no limit); the others wait
        their turn (``retrieve`` across threads, ``aretrieve`` per event loop).
    settings :
        The config's fields, flat (``width=2``); they override ``config``'s.
    """

    def __init__(
        self,
        method: str,
        graph: Any,
        llm: Any = None,
        *,
        embeddings: Any = None,
        options: Mapping[str, Any] | None = None,
        k: int | None = None,
        on_unknown_entity: str = "message",
        max_llm_calls: int | None = None,
        max_prompt_tokens: int | None = None,
        llm_timeout: float | None = None,
        retry: RetryPolicy | None = None,
        max_concurrency: int | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        **settings: Any,
    ) -> None:
        if llm is None:
            raise ConfigurationError(
                f"{type(self).__name__} needs llm=: a LlamaIndex LLM, e.g. OpenAI(model=...), "
                "or llamaindex_gretriever.build_llamacpp_llm() for the offline local model"
            )
        if k is not None and k < 1:
            raise InvalidSettingError("k must be >= 1")
        if on_unknown_entity not in UNKNOWN_ENTITY_MODES:
            raise ConfigurationError(
                f"on_unknown_entity must be one of {UNKNOWN_ENTITY_MODES}, "
                f"got {on_unknown_entity!r}"
            )
        self.store = as_graph_store(graph)
        self.llm = llm
        self.chat = as_chat_llm(llm)
        chosen = {k: v for k, v in {**(options or {}), **settings}.items() if v is not None}
        preset = chosen.pop("preset", None)
        self.engine = build_method(
            method, self.store, embeddings=embeddings, preset=preset, options=chosen
        )
        self.k = k
        self.on_unknown_entity = on_unknown_entity
        self.retry = retry_policy(retry, llm_timeout)
        self.in_flight = InFlightLimit(max_concurrency)
        limits = {"max_llm_calls": max_llm_calls, "max_prompt_tokens": max_prompt_tokens}
        given = any(v is not None for v in limits.values())
        self.budget = Budget(**limits) if given else None
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def topics(self, question: str, topic_entities: Sequence[str] | None = None) -> list[str]:
        """The given topic entities, else the question itself when it is a node's name (else
        ``[]``: the method links the question's entities itself)."""
        return list(topic_entities or ()) or name_as_topic(self.store, question)

    def run(self, question: str, topic_entities: Sequence[str] | None = None) -> MethodResult:
        """The method's result for ``question`` (one run)."""
        with self.in_flight.hold():
            topics = self.topics(question, topic_entities) or None
            result: MethodResult = self.engine.run(
                question, self.chat, topics, retry=self.retry, budget=self.budget
            )
        return result

    async def arun(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> MethodResult:
        """The async :meth:`run`."""
        async with self.in_flight.ahold():
            # Linking reads the graph: awaited as the method's own graph work is.
            topics = await run_graph_work(self.topics, question, topic_entities)
            result: MethodResult = await self.engine.arun(
                question, self.chat, topics or None, retry=self.retry, budget=self.budget
            )
        return result

    def _unknown(self, err: EntityNotFoundError) -> list[NodeWithScore]:
        if self.on_unknown_entity == "raise":
            raise err
        return [] if self.on_unknown_entity == "empty" else [not_found_node(err)]

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        try:
            return evidence_nodes(self.run(query_bundle.query_str), self.k)
        except EntityNotFoundError as err:
            return self._unknown(err)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        try:
            return evidence_nodes(await self.arun(query_bundle.query_str), self.k)
        except EntityNotFoundError as err:
            return self._unknown(err)

    def as_query_engine(self, **kwargs: Any) -> KGMethodQueryEngine:
        """A query engine answering with this method (``kwargs``: ``callback_manager``)."""
        return KGMethodQueryEngine(retriever=self, **kwargs)

    def as_tool(
        self, name: str = "knowledge_graph_qa", description: str = METHOD_TOOL_DESCRIPTION
    ) -> QueryEngineTool:
        """:meth:`as_query_engine` as an agent's tool (the method's answer, its evidence as
        the sources)."""
        return QueryEngineTool.from_defaults(self.as_query_engine(), name, description)


class KGMethodQueryEngine(CustomQueryEngine):
    """The method's own answer as the response (``Unknown`` said in words, a fallback answer
    marked as the model's own), its evidence as the source nodes, from one run; the result's
    dict is ``response.metadata["result"]``. An unknown topic entity is answered with the
    closest names (``metadata["error"] == "entity_not_found"``)."""

    retriever: KGMethodRetriever

    def _response(self, result: MethodResult) -> Response:
        return Response(
            response=answer_text(result.answer, result.fell_back),
            source_nodes=evidence_nodes(result, self.retriever.k),
            metadata={"answer": result.answer, "result": result.to_dict()},
        )

    @staticmethod
    def _unknown(err: EntityNotFoundError) -> Response:
        meta = {"error": "entity_not_found", "entity": err.name, "suggestions": err.suggestions}
        return Response(response=unknown_entity_text(err), source_nodes=[], metadata=meta)

    def custom_query(self, query_str: str) -> Response:
        try:
            return self._response(self.retriever.run(query_str))
        except EntityNotFoundError as err:
            return self._unknown(err)

    async def acustom_query(self, query_str: str) -> Response:
        try:
            return self._response(await self.retriever.arun(query_str))
        except EntityNotFoundError as err:
            return self._unknown(err)


class FastToGRetriever(KGMethodRetriever):
    """FastToG with a LlamaIndex LLM: the communities it reasoned over as nodes, the start
    community (``kind="start"``: the topic's facts, the followed paths) among them, those
    that name the answer first.

    LlamaIndex's ``BaseRetriever`` contract; its twin for LangChain is
    :class:`langchain_fasttog.FastToGRetriever`.

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
        :class:`~llamaindex_gretriever.method_retrievers.KGMethodRetriever`'s ``k``,
        ``on_unknown_entity``, ``max_llm_calls``, ``max_prompt_tokens``, ``callback_manager``,
        and FastToGConfig fields, flat (``width=2``).
    """

    def __init__(
        self,
        graph: Any,
        llm: Any = None,
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

    LlamaIndex's ``BaseRetriever`` contract; its twin for LangChain is
    :class:`langchain_fasttog.ToGRetriever`.

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

    def __init__(self, graph: Any, llm: Any = None, config: Any = None, **kwargs: Any) -> None:
        super().__init__("tog", graph, llm, options={"config": config}, **kwargs)


class CGPERetriever(KGMethodRetriever):
    """CGPE with a LlamaIndex LLM: the explored clue paths as nodes (``A -rel-> B``), those
    that name the answer first.

    LlamaIndex's ``BaseRetriever`` contract; its twin for LangChain is
    :class:`langchain_fasttog.CGPERetriever`.

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

    def __init__(self, graph: Any, llm: Any = None, config: Any = None, **kwargs: Any) -> None:
        super().__init__("cgpe", graph, llm, options={"config": config}, **kwargs)
