"""Bases of the LangChain adapters: every kgcore method as a Runnable and as a retriever.

A method adapter names how to build its kgcore engine (:meth:`engine`); the bases drive it
through :class:`~langchain_fasttog.llm.LangChainLLM`, so every LLM step is a child run named
``<method>.<step>``, on the sync and the async path alike.

The ``llm`` field takes any LangChain chat model or Runnable messages -> message
(``.with_retry()``, ``.bind(stop=...)``, ``.with_fallbacks([...])``, configurable models). The
model keeps its own temperature and token limit: a method's per-step temperatures are applied
only where the user asked for them (a config field set to another value than its default, or
``sampling="paper"``), and token caps only through a :class:`~langchain_fasttog.llm.SamplingPolicy`
(or the config's ``*_max_tokens`` fields) that the user sets. Unknown keyword arguments are
refused, and ``graph`` is checked (and adapted, see :mod:`kgcore.foreign_graphs`) when the
object is built. ``max_llm_calls`` and ``max_prompt_tokens`` cap what each question may cost
(:mod:`kgcore.methods.kernel.budget`): the run stops with its best answer so far, and the
result's ``extra["budget_exhausted"]`` names the limit.

Example
-------
>>> unpack_input({"question": " who directed [Giant]? ", "topic_entities": ["Giant"]})
('who directed [Giant]?', ['Giant'])
>>> unpack_input({"query": "who directed [Giant]?"})
('who directed [Giant]?', None)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForChainRun,
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForChainRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableConfig, RunnableSerializable
from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from kgcore.agent_text import name_as_topic, unknown_entity_text
from kgcore.concurrency import run_graph_work
from kgcore.exceptions import (
    EntityNotFoundError,
    InvalidQuestionError,
    InvalidSettingError,
)
from kgcore.foreign_graphs import as_graph_store
from kgcore.graph.store import GraphStore
from kgcore.linking import bracketed_entities, link_entity_details
from kgcore.methods.kernel import Budget, listening_to_steps
from kgcore.methods.result import MethodResult
from kgcore.validation import check_question
from langchain_fasttog.fields import KGModel
from langchain_fasttog.llm import LangChainLLM, SamplingPolicy, require_chat_runnable
from langchain_fasttog.run_fields import RunFields
from langchain_fasttog.streaming import AsyncStepEvents, StepEvents, astream_steps, stream_steps

ChainInput = str | dict[str, Any]
#: Keys a chain's input dict may carry the question under, in order of preference.
QUESTION_KEYS = ("question", "query", "input")
#: What a retriever does when a topic entity is not in the graph.
OnUnknownEntity = Literal["raise", "empty", "message"]
Sampling = SamplingPolicy | Literal["paper"] | None


def unpack_input(value: ChainInput) -> tuple[str, list[str] | None]:
    """The question and optional topic entities of a Runnable's input.

    A dict carries the question under ``question``, ``query`` or ``input``.
    """
    if isinstance(value, dict):
        key = next((k for k in QUESTION_KEYS if k in value), None)
        if key is None:
            raise InvalidQuestionError(
                f"the input dict needs a {' / '.join(repr(k) for k in QUESTION_KEYS)} key "
                f"(and optionally 'topic_entities'), got keys {sorted(map(str, value))}"
            )
        topic = value.get("topic_entities")
        return check_question(value[key]), (list(topic) if topic else None)
    return check_question(value), None


def entity_links(
    graph: Any, question: str, topic_entities: Sequence[str] | None
) -> list[dict[str, Any]]:
    """How each given or bracketed mention was linked (see :class:`kgcore.linking.EntityLink`).

    Mentions extracted by the LLM are not listed (the engine links them itself).
    """
    if not isinstance(graph, GraphStore):
        return []
    links = []
    for mention in topic_entities or bracketed_entities(question):
        try:
            links.append(link_entity_details(graph, mention).to_dict())
        except EntityNotFoundError:
            continue
    return links


def not_found_document(err: EntityNotFoundError) -> Document:
    """A Document telling an agent which entity is unknown and which names are close."""
    return Document(
        page_content=unknown_entity_text(err),
        metadata={"error": "entity_not_found", "entity": err.name, "suggestions": err.suggestions},
    )


class GraphField(KGModel):
    """A ``graph`` field checked at construction: a GraphStore, or a graph adapted to one."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    graph: GraphStore

    @field_validator("graph", mode="before")
    @classmethod
    def _check_graph(cls, value: Any) -> GraphStore:
        return as_graph_store(value)


class DocumentOptions(KGModel):
    """``k`` and ``on_unknown_entity``, as every retriever here reads them (see
    :class:`KGMethodRetriever`), and the entity links each Document carries."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    k: int | None = None
    on_unknown_entity: OnUnknownEntity = "message"

    def _k(self, k: int | None) -> int | None:
        k = self.k if k is None else k
        if k is not None and k < 1:
            raise InvalidSettingError("k must be >= 1")
        return k

    def _unknown_entity(self, err: EntityNotFoundError) -> list[Document]:
        if self.on_unknown_entity == "empty":
            return []
        if self.on_unknown_entity == "message":
            return [not_found_document(err)]
        raise err

    def _with_links(
        self, docs: list[Document], query: str, topic_entities: Sequence[str] | None
    ) -> list[Document]:
        links = entity_links(getattr(self, "graph", None), query, topic_entities)
        for doc in docs:
            doc.metadata["entity_links"] = links
        return docs


class _LLMFields(RunFields):
    """Validation of ``llm`` and the sampling policy the methods share, and the run settings
    (:class:`~langchain_fasttog.run_fields.RunFields`: ``llm_timeout``, ``retry``,
    ``max_concurrency``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    llm: Runnable
    method: str = "method"
    sampling: Sampling = None
    max_llm_calls: int | None = None
    max_prompt_tokens: int | None = None

    @field_validator("llm", mode="before")
    @classmethod
    def _check_llm(cls, value: Any) -> Runnable:
        return require_chat_runnable(value)

    @field_validator("max_llm_calls", "max_prompt_tokens", mode="before")
    @classmethod
    def _check_cap(cls, value: Any, info: ValidationInfo) -> Any:
        if value is not None:
            Budget(**{str(info.field_name): value})  # the cost cap's own checks
        return value

    def cost_cap(self) -> Budget | None:
        """The per-question cost cap of ``max_llm_calls`` / ``max_prompt_tokens`` (``None``:
        none, the engine's own)."""
        if self.max_llm_calls is None and self.max_prompt_tokens is None:
            return None
        return Budget(max_llm_calls=self.max_llm_calls, max_prompt_tokens=self.max_prompt_tokens)

    def requested_sampling(self) -> SamplingPolicy:
        """The policy implied by the settings the user gave (none: the model's own)."""
        return SamplingPolicy()

    def sampling_policy(self) -> SamplingPolicy:
        """``sampling`` when set (``"paper"``: the method's temperatures), else as requested."""
        if self.sampling == "paper":
            return SamplingPolicy.paper(max_tokens=False)
        if isinstance(self.sampling, SamplingPolicy):
            return self.sampling
        return self.requested_sampling()

    def engine(self) -> Any:
        """The kgcore engine (subclasses build it)."""
        raise NotImplementedError

    def run_prefix(self) -> str:
        """Prefix of the child runs' names (``fasttog.prune``, ``cgpe.clues``, ...)."""
        return self.method

    def _llm(self, run_manager: Any) -> LangChainLLM:
        return LangChainLLM(
            self.llm,
            callbacks=run_manager.get_child(),
            run_name_prefix=self.run_prefix(),
            sampling=self.sampling_policy(),
        )

    def _run_engine(
        self, question: str, topic: Sequence[str] | None, run_manager: Any
    ) -> MethodResult:
        """The engine's result for ``question``, with this object's run settings."""
        return self.engine().run(
            question,
            self._llm(run_manager),
            topic,
            retry=self.retry_policy(),
            budget=self.cost_cap(),
        )

    async def _arun_engine(
        self, question: str, topic: Sequence[str] | None, run_manager: Any
    ) -> MethodResult:
        """The async :meth:`_run_engine` (the engine is built in the graph executor: it may
        load a model)."""
        engine = await run_graph_work(self.engine)
        return await engine.arun(
            question,
            self._llm(run_manager),
            topic,
            retry=self.retry_policy(),
            budget=self.cost_cap(),
        )


class KGMethodChain(_LLMFields, RunnableSerializable[ChainInput, dict[str, Any]]):
    """Base of the method Runnables: a kgcore engine driven through a LangChain chat model.

    The input is a question string or ``{"question": ..., "topic_entities": [...]}`` (the
    question may also be under ``query`` or ``input``); the output is the engine's result as a
    dict. Subclasses build the engine (:meth:`engine`) and name their runs (``method``).

    ``sampling``: ``None`` (the model's own settings, except config fields the user changed),
    ``"paper"`` (the method's temperatures at every step) or a
    :class:`~langchain_fasttog.llm.SamplingPolicy`.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    def _run(self, value: ChainInput, run_manager: CallbackManagerForChainRun) -> dict[str, Any]:
        question, topic = unpack_input(value)
        with self.in_flight.hold(), listening_to_steps(StepEvents(run_manager)):
            result = self._run_engine(question, topic, run_manager)
        return dict(result.to_dict())

    async def _arun(
        self, value: ChainInput, run_manager: AsyncCallbackManagerForChainRun
    ) -> dict[str, Any]:
        question, topic = unpack_input(value)
        events = AsyncStepEvents(run_manager)
        async with self.in_flight.ahold():
            with listening_to_steps(events):
                result = await self._arun_engine(question, topic, run_manager)
        await events.flush()
        return dict(result.to_dict())

    def invoke(
        self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._call_with_config(self._run, input, config, run_type="chain")

    async def ainvoke(
        self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return await self._acall_with_config(self._arun, input, config, run_type="chain")

    def stream(
        self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """Each step as it happens, as ``{"step": record}``, then the result ``invoke`` returns.

        A record is one step of the method's trace (``result["extra"]["steps"]``): its
        ``purpose`` (``prune``, ``reason``, ...), what was ``offered`` and ``picked``, a
        reasoning step's ``answer`` (``None``: reasoning goes on). See
        :mod:`langchain_fasttog.streaming`.
        """
        return stream_steps(lambda: self.invoke(input, config, **kwargs))

    async def astream(
        self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """The async :meth:`stream`."""
        async for chunk in astream_steps(lambda: self.ainvoke(input, config, **kwargs)):
            yield chunk

    def as_tool(
        self,
        args_schema: type[BaseModel] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        arg_types: dict[str, type] | None = None,
    ) -> BaseTool:
        """The chain as an agent's tool: ``question`` and optional ``topic_entities`` in, the
        answer out (the result dict as the artifact); an unknown name gets the closest names
        instead of an error (see :mod:`langchain_fasttog.agent_tool`). With ``args_schema`` or
        ``arg_types``, LangChain's own ``Runnable.as_tool``."""
        if args_schema is not None or arg_types is not None:
            return super().as_tool(
                args_schema, name=name, description=description, arg_types=arg_types
            )
        from langchain_fasttog.agent_tool import method_tool

        return method_tool(self, name=name, description=description)


class KGMethodRetriever(_LLMFields, DocumentOptions, BaseRetriever):
    """Base of the method retrievers: the knowledge a kgcore engine reasoned over, as Documents.

    LangChain's ``BaseRetriever`` contract; its twin for LlamaIndex is
    :class:`llamaindex_gretriever.KGMethodRetriever`.

    ``k`` caps the documents, at construction or per call (``invoke(question, k=1)``);
    ``topic_entities`` may be passed per call. Subclasses build the engine (:meth:`engine`) and
    turn its result into Documents (:meth:`to_documents`).

    ``on_unknown_entity``: when a topic entity is not in the graph, return one Document naming
    it and the closest entities (``"message"``, the default: what an agent using the retriever
    as a tool can act on; its metadata holds ``error="entity_not_found"``, ``entity`` and
    ``suggestions``), return ``[]`` (``"empty"``), or raise
    :class:`~kgcore.exceptions.EntityNotFoundError` (``"raise"``). A query that is a bare
    entity name (``Ruggero Raimondi``, no brackets) is about that entity. ``sampling`` as in
    :class:`KGMethodChain`.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    def to_documents(self, result: MethodResult, k: int | None) -> list[Document]:
        raise NotImplementedError

    def _topics(self, query: str, topic_entities: Sequence[str] | None) -> Sequence[str] | None:
        """The caller's topic entities, else the query itself when it is a node's name."""
        graph = getattr(self, "graph", None)
        if topic_entities or not isinstance(graph, GraphStore):
            return topic_entities
        return name_as_topic(graph, query) or None

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        topic_entities: Sequence[str] | None = None,
    ) -> list[Document]:
        k = self._k(k)
        with self.in_flight.hold():
            topic_entities = self._topics(query, topic_entities)
            try:
                with listening_to_steps(StepEvents(run_manager)):
                    result = self._run_engine(query, topic_entities, run_manager)
            except EntityNotFoundError as err:
                return self._unknown_entity(err)
            return self._with_links(self.to_documents(result, k), query, topic_entities)

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        topic_entities: Sequence[str] | None = None,
    ) -> list[Document]:
        k = self._k(k)
        events = AsyncStepEvents(run_manager)
        # Reading the graph (topics, links) runs in the graph executor, as the method's does.
        async with self.in_flight.ahold():
            topic_entities = await run_graph_work(self._topics, query, topic_entities)
            try:
                with listening_to_steps(events):
                    result = await self._arun_engine(query, topic_entities, run_manager)
            except EntityNotFoundError as err:
                return self._unknown_entity(err)
            await events.flush()
            docs = self.to_documents(result, k)
            return await run_graph_work(self._with_links, docs, query, topic_entities)
