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

import dataclasses
from typing import Any

from pydantic import Field, model_validator

from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.tog import ToG, ToGConfig
from langchain_fasttog.base import GraphField, KGMethodChain
from langchain_fasttog.llm import SamplingPolicy
from langchain_fasttog.method_config import fold_config

#: The ToGConfig fields ToGChain takes as keywords.
TOG_FIELDS = tuple(f.name for f in dataclasses.fields(ToGConfig))


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
    config : ToGConfig
        Every ToG setting, prompts included (:class:`~kgcore.methods.tog.ToGConfig`); its
        fields may also be given as keywords (``width=2``), which override ``config``'s.
        The untyped ``options`` dict of earlier versions is still read, with a
        :class:`DeprecationWarning`.

    Example
    -------
    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
    >>> chain = ToGChain(graph=store, llm=FakeListChatModel(responses=["Yes {J. Mankiewicz}"]))
    >>> chain.invoke("who directed [Cleopatra]")["llm_calls"]
    1
    >>> ToGChain(graph=store, llm=FakeListChatModel(responses=[]), width=2).config.width
    2
    """

    method: str = "tog"
    config: ToGConfig = Field(default_factory=ToGConfig)

    @model_validator(mode="before")
    @classmethod
    def _fold_config_fields(cls, data: Any) -> Any:
        return fold_config(data, ToGConfig, TOG_FIELDS, deprecated_options=True)

    def engine(self) -> ToG:
        return ToG(self.graph, self.config)
