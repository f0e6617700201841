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

from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.tog import ToG
from langchain_fasttog.base import GraphField, KGMethodChain
from langchain_fasttog.llm import SamplingPolicy


class BaselineChain(KGMethodChain):
    """IO, CoT or CoT-SC prompting as a Runnable.

    Parameters
    ----------
    llm : BaseChatModel
        Any LangChain chat model.
    kind : str
        ``"io"``, ``"cot"`` or ``"cot-sc"``.
    n, temperature, seed :
        CoT-SC's samples, their temperature, and the seed breaking vote ties. The temperature
        reaches the model only when given (or with ``sampling="paper"``); otherwise the model's
        own applies, and it must sample (temperature > 0) for the votes to differ.
    """

    kind: str = "cot"
    n: int = 5
    temperature: float = 0.7
    seed: int = 0

    def engine(self) -> PromptBaseline:
        return PromptBaseline(self.kind, n=self.n, temperature=self.temperature, seed=self.seed)

    def requested_sampling(self) -> SamplingPolicy:
        return SamplingPolicy(temperature="temperature" in self.model_fields_set)

    def run_prefix(self) -> str:
        return self.kind


class ToGChain(GraphField, KGMethodChain):
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

    method: str = "tog"
    width: int = 3
    max_depth: int = 3
    seed: int = 0
    options: dict[str, Any] = {}

    def engine(self) -> ToG:
        return ToG(
            self.graph,
            width=self.width,
            max_depth=self.max_depth,
            seed=self.seed,
            **self.options,
        )
