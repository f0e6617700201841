"""Bases of the LangChain adapters: every kgcore method as a Runnable and as a retriever.

A method adapter names how to build its kgcore engine (:meth:`engine`); the bases drive it
through :class:`~langchain_fasttog.llm.LangChainLLM`, so every LLM step is a child run named
``<method>.<step>``, on the sync and the async path alike.

Example
-------
>>> unpack_input({"question": " who directed [Giant]? ", "topic_entities": ["Giant"]})
('who directed [Giant]?', ['Giant'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForChainRun,
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForChainRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import ConfigDict

from kgcore.graph.store import GraphStore
from kgcore.methods.result import MethodResult
from kgcore.validation import check_question
from langchain_fasttog.llm import LangChainLLM

ChainInput = str | dict[str, Any]


def unpack_input(value: ChainInput) -> tuple[str, list[str] | None]:
    """The question and optional topic entities of a Runnable's input."""
    topic = value.get("topic_entities") if isinstance(value, dict) else None
    return check_question(value), (list(topic) if topic else None)


def require_graph(graph: Any) -> GraphStore:
    """``graph`` itself when it implements the kgcore GraphStore protocol."""
    if not isinstance(graph, GraphStore):
        raise TypeError(f"graph must implement kgcore GraphStore, got {type(graph).__name__}")
    return graph


class KGMethodChain(RunnableSerializable[ChainInput, dict[str, Any]]):
    """Base of the method Runnables: a kgcore engine driven through a LangChain chat model.

    The input is a question string or ``{"question": ..., "topic_entities": [...]}``; the
    output is the engine's result as a dict. Subclasses build the engine (:meth:`engine`) and
    name their runs (``method``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    llm: BaseChatModel
    method: str = "method"

    def engine(self) -> Any:
        raise NotImplementedError

    def run_prefix(self) -> str:
        """Prefix of the child runs' names (``fasttog.prune``, ``tog.tog_reason``, ...)."""
        return self.method

    def _llm(self, run_manager: Any) -> LangChainLLM:
        return LangChainLLM(
            self.llm, callbacks=run_manager.get_child(), run_name_prefix=self.run_prefix()
        )

    def _run(self, value: ChainInput, run_manager: CallbackManagerForChainRun) -> dict[str, Any]:
        question, topic = unpack_input(value)
        return dict(self.engine().run(question, self._llm(run_manager), topic).to_dict())

    async def _arun(
        self, value: ChainInput, run_manager: AsyncCallbackManagerForChainRun
    ) -> dict[str, Any]:
        question, topic = unpack_input(value)
        result = await self.engine().arun(question, self._llm(run_manager), topic)
        return dict(result.to_dict())

    def invoke(
        self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._call_with_config(self._run, input, config, run_type="chain")

    async def ainvoke(
        self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return await self._acall_with_config(self._arun, input, config, run_type="chain")


class KGMethodRetriever(BaseRetriever):
    """Base of the method retrievers: the knowledge a kgcore engine reasoned over, as Documents.

    ``k`` caps the documents, at construction or per call (``invoke(question, k=1)``);
    ``topic_entities`` may be passed per call. Subclasses build the engine (:meth:`engine`) and
    turn its result into Documents (:meth:`to_documents`).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    llm: BaseChatModel
    k: int | None = None
    method: str = "method"

    def engine(self) -> Any:
        raise NotImplementedError

    def to_documents(self, result: MethodResult, k: int | None) -> list[Document]:
        raise NotImplementedError

    def _k(self, k: int | None) -> int | None:
        k = self.k if k is None else k
        if k is not None and k < 1:
            raise ValueError("k must be >= 1")
        return k

    def _llm(self, run_manager: Any) -> LangChainLLM:
        return LangChainLLM(
            self.llm, callbacks=run_manager.get_child(), run_name_prefix=self.method
        )

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        topic_entities: Sequence[str] | None = None,
    ) -> list[Document]:
        k = self._k(k)
        result = self.engine().run(query, self._llm(run_manager), topic_entities)
        return self.to_documents(result, k)

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        topic_entities: Sequence[str] | None = None,
    ) -> list[Document]:
        k = self._k(k)
        result = await self.engine().arun(query, self._llm(run_manager), topic_entities)
        return self.to_documents(result, k)
