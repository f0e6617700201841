"""The prompt-only baselines as a LangChain Runnable: IO, CoT and CoT-SC (ToG, the graph
baseline, is in :mod:`langchain_fasttog.tog`).

The chain takes a question string or ``{"question": ..., "topic_entities": [...]}`` and returns
the method's result as a dict (answer, LLM calls, tokens, timings). Every LLM step appears as a
child run named ``<kind>.<step>`` in LangChain callbacks.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> chain = BaselineChain(llm=FakeListChatModel(responses=["{Paris}"]), kind="io")
>>> chain.invoke("capital of France?")["answer"]
'Paris'
"""

from __future__ import annotations

from kgcore.methods.baselines import PromptBaseline
from langchain_fasttog.base import KGMethodChain
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
