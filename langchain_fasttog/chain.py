"""FastToG as a LangChain Runnable: question in, the whole result out as a dict.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([
...     ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
...     ("All About Eve", "directed_by", "Joseph L. Mankiewicz")])
>>> chain = FastToGChain(graph=store, llm=FakeListChatModel(responses=["{1}", "{All About Eve}"]),
...                      config=FastToGConfig(max_community_size=2))
>>> chain.invoke({"question": "which films share the director of [Cleopatra]"})["answer"]
'All About Eve'
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import ConfigDict, Field

from kgcore.graph.store import GraphStore
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.validation import check_question
from langchain_fasttog.llm import LangChainLLM

ChainInput = str | dict[str, Any]


def _unpack(value: ChainInput) -> tuple[str, list[str] | None]:
    topic = value.get("topic_entities") if isinstance(value, dict) else None
    return check_question(value), (list(topic) if topic else None)


class FastToGChain(RunnableSerializable[ChainInput, dict[str, Any]]):
    """FastToG question answering as a Runnable (``invoke``, ``batch``, ``ainvoke``, ``abatch``).

    The input is a question string or ``{"question": ..., "topic_entities": [...]}``; the output is
    :meth:`FastToGResult.to_dict` (answer, chains, depth, LLM calls, tokens, fallback, timings).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    graph: Any
    llm: BaseChatModel
    config: FastToGConfig = Field(default_factory=FastToGConfig)
    textualizer: Any = None

    def _engine(self) -> FastToG:
        if not isinstance(self.graph, GraphStore):
            raise TypeError(
                f"graph must implement kgcore GraphStore, got {type(self.graph).__name__}"
            )
        return FastToG(self.graph, self.config, self.textualizer)

    def _run(self, value: ChainInput, run_manager: CallbackManagerForChainRun) -> dict[str, Any]:
        question, topic = _unpack(value)
        llm = LangChainLLM(self.llm, callbacks=run_manager.get_child())
        return self._engine().run(question, llm, topic).to_dict()

    async def _arun(
        self, value: ChainInput, run_manager: AsyncCallbackManagerForChainRun
    ) -> dict[str, Any]:
        question, topic = _unpack(value)
        llm = LangChainLLM(self.llm, callbacks=run_manager.get_child())
        return (await self._engine().arun(question, llm, topic)).to_dict()

    def invoke(
        self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._call_with_config(self._run, input, config, run_type="chain")

    async def ainvoke(
        self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return await self._acall_with_config(self._arun, input, config, run_type="chain")
