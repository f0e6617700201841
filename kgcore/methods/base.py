"""The shape every QA method shares: a step generator, driven sync or async.

A method implements :meth:`StepMethod.steps`; :meth:`~StepMethod.run` and
:meth:`~StepMethod.arun` drive it with a synchronous or an asynchronous model
(see :mod:`kgcore.llm.protocol`).

Example
-------
>>> from kgcore.llm import LLMRequest, ScriptedLLM
>>> from kgcore.methods.result import MethodResult
>>> class Echo(StepMethod[MethodResult]):
...     def steps(self, question, topic_entities=None):
...         reply = yield LLMRequest.from_prompt(question, purpose="io")
...         return MethodResult(question=question, answer=reply.text, method="echo")
>>> Echo().run("hi", ScriptedLLM(["hello"])).answer
'hello'
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Generic, TypeVar

from kgcore.llm.protocol import AsyncChatLLM, ChatLLM, Steps, arun_steps, run_steps

R = TypeVar("R")


class StepMethod(ABC, Generic[R]):
    """Base of the QA methods (FastToG, ToG, CGPE, the prompt baselines, ...)."""

    @abstractmethod
    def steps(self, question: str, topic_entities: Sequence[str] | None = None) -> Steps[R]:
        """The method as a step generator yielding LLM requests and returning its result."""

    def run(self, question: str, llm: ChatLLM, topic_entities: Sequence[str] | None = None) -> R:
        """Answer ``question`` with a synchronous model."""
        return run_steps(self.steps(question, topic_entities), llm)

    async def arun(
        self,
        question: str,
        llm: AsyncChatLLM | ChatLLM,
        topic_entities: Sequence[str] | None = None,
    ) -> R:
        """Answer ``question`` with an asynchronous model (or a sync one, in a thread)."""
        return await arun_steps(self.steps(question, topic_entities), llm)
