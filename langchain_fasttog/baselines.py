"""The baselines as LangChain Runnables: IO, CoT, CoT-SC (prompt only) and ToG (graph).

Each takes a question string or ``{"question": ..., "topic_entities": [...]}`` and returns the
method's result as a dict (answer, LLM calls, tokens, depth, timings, retrieved context). Every
LLM step appears as a child run named ``<method>.<step>`` in LangChain callbacks.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> chain = BaselineChain(llm=FakeListChatModel(responses=["{Paris}"]), kind="io")
>>> chain.invoke("capital of France?")["answer"]
'Paris'
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import ConfigDict

from kgcore.graph.store import GraphStore
from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.tog import ToG
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

    Subclasses say how to build the engine (:meth:`engine`) and name their runs (``method``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    llm: BaseChatModel
    method: str = "method"

    def engine(self) -> Any:
        raise NotImplementedError

    def run_prefix(self) -> str:
        """Prefix of the child runs' names (``tog.tog_reason``, ...)."""
        return self.method

    def _run(self, value: ChainInput, run_manager: CallbackManagerForChainRun) -> dict[str, Any]:
        question, topic = unpack_input(value)
        prefix = self.run_prefix()
        llm = LangChainLLM(self.llm, callbacks=run_manager.get_child(), run_name_prefix=prefix)
        return dict(self.engine().run(question, llm, topic).to_dict())

    async def _arun(
        self, value: ChainInput, run_manager: AsyncCallbackManagerForChainRun
    ) -> dict[str, Any]:
        question, topic = unpack_input(value)
        prefix = self.run_prefix()
        llm = LangChainLLM(self.llm, callbacks=run_manager.get_child(), run_name_prefix=prefix)
        return dict((await self.engine().arun(question, llm, topic)).to_dict())

    def invoke(
        self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._call_with_config(self._run, input, config, run_type="chain")

    async def ainvoke(
        self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return await self._acall_with_config(self._arun, input, config, run_type="chain")


class BaselineChain(KGMethodChain):
    """IO, CoT or CoT-SC prompting as a Runnable.

    Parameters
    ----------
    llm : BaseChatModel
        Any LangChain chat model.
    kind : str
        ``"io"``, ``"cot"`` or ``"cot-sc"``.
    n, temperature, seed :
        CoT-SC's samples, their temperature, and the seed breaking vote ties.
    """

    kind: str = "cot"
    n: int = 5
    temperature: float = 0.7
    seed: int = 0

    def engine(self) -> PromptBaseline:
        return PromptBaseline(self.kind, n=self.n, temperature=self.temperature, seed=self.seed)

    def run_prefix(self) -> str:
        return self.kind


class ToGChain(KGMethodChain):
    """Think-on-Graph (n-d 1-w) as a Runnable.

    Parameters
    ----------
    graph : GraphStore
        The knowledge graph.
    llm : BaseChatModel
        Any LangChain chat model.
    width, max_depth, seed :
        ToG's W, D_max and the seed of its entity sampling (defaults 3, 3, 0).
    options : dict
        Further :class:`~kgcore.methods.tog.ToG` settings.

    Example
    -------
    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
    >>> chain = ToGChain(graph=store, llm=FakeListChatModel(responses=["Yes {J. Mankiewicz}"]))
    >>> chain.invoke("who directed [Cleopatra]")["llm_calls"]
    1
    """

    graph: Any
    method: str = "tog"
    width: int = 3
    max_depth: int = 3
    seed: int = 0
    options: dict[str, Any] = {}

    def engine(self) -> ToG:
        return ToG(
            require_graph(self.graph),
            width=self.width,
            max_depth=self.max_depth,
            seed=self.seed,
            **self.options,
        )
