"""The shape every QA method shares: a step generator, driven sync or async.

A method implements :meth:`StepMethod.steps`; :meth:`~StepMethod.run` and
:meth:`~StepMethod.arun` drive it with a synchronous or an asynchronous model
(see :mod:`kgcore.llm.protocol`).

Every subclass's ``steps`` is wrapped once, when the class is defined, so the same guards hold
for every method, whoever drives it (``run``, ``arun``, the evaluation harness, the adapters):
the question and the caller's topic entities are checked against the limits of
:mod:`kgcore.validation` before any work, and a final answer that is not a short printable
phrase becomes ``Unknown`` (``extra["answer_guarded"]`` says so).

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

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from kgcore.llm.protocol import (
    AsyncChatLLM,
    ChatLLM,
    RetryPolicy,
    Steps,
    arun_steps,
    run_steps,
)
from kgcore.validation import UNKNOWN, answer_phrase, check_question, check_topic_entities

R = TypeVar("R")


def guard_result(result: Any) -> Any:
    """Replace a result's answer by ``Unknown`` unless it is a short printable phrase."""
    answer = getattr(result, "answer", None)
    if isinstance(answer, str) and answer != UNKNOWN and answer_phrase(answer) is None:
        result.answer = UNKNOWN
        extra = getattr(result, "extra", None)
        if isinstance(extra, dict):
            extra["answer_guarded"] = True
    return result


def guarded_steps(steps: Callable[..., Steps[Any]]) -> Callable[..., Steps[Any]]:
    """``steps`` with the input checks and the answer guard of this module's docstring."""
    if getattr(steps, "_kg_guarded", False):
        return steps

    @functools.wraps(steps)
    def wrapper(
        self: Any, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[Any]:
        checked = check_question(question)
        topics = check_topic_entities(topic_entities)
        result = yield from steps(self, checked, topics)
        return guard_result(result)

    wrapper._kg_guarded = True  # type: ignore[attr-defined]
    return wrapper


class StepMethod(ABC, Generic[R]):
    """Base of the QA methods (FastToG, ToG, CGPE, the prompt baselines, ...)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "steps" in cls.__dict__ and not getattr(cls.steps, "__isabstractmethod__", False):
            cls.steps = guarded_steps(cls.__dict__["steps"])  # type: ignore[method-assign]

    @abstractmethod
    def steps(self, question: str, topic_entities: Sequence[str] | None = None) -> Steps[R]:
        """The method as a step generator yielding LLM requests and returning its result."""

    def run(
        self,
        question: str,
        llm: ChatLLM,
        topic_entities: Sequence[str] | None = None,
        retry: RetryPolicy | None = None,
    ) -> R:
        """Answer ``question`` with a synchronous model (``retry``: see :class:`RetryPolicy`)."""
        return run_steps(self.steps(question, topic_entities), llm, retry)

    async def arun(
        self,
        question: str,
        llm: AsyncChatLLM | ChatLLM,
        topic_entities: Sequence[str] | None = None,
        retry: RetryPolicy | None = None,
    ) -> R:
        """Answer ``question`` with an asynchronous model (or a sync one, in a thread)."""
        return await arun_steps(self.steps(question, topic_entities), llm, retry)
