"""The shape every QA method shares: a step generator, driven sync or async.

A method implements :meth:`StepMethod.steps`; :meth:`~StepMethod.run` and
:meth:`~StepMethod.arun` drive it with a synchronous or an asynchronous model
(see :mod:`kgcore.llm.protocol`).

Every subclass's ``steps`` is wrapped once, when the class is defined, so the same guards hold
for every method, whoever drives it (``run``, ``arun``, the evaluation harness, the adapters):
the question and the caller's topic entities are checked against the limits of
:mod:`kgcore.validation` before any work, a final answer that is not a short printable
phrase becomes ``Unknown`` (the typed :data:`~kgcore.validation.UNKNOWN`: the result says
``answered=False``) and an unnamed graph node (``m.0w4dx1v``) is never an answer, an
answer the result flags as not grounded must pass the sanity check for its question
(``extra["answer_guarded"]`` says when the answer changed), every request of one run
carries that run's ``cache_scope`` (:func:`in_cache_scope`), and a run stays within its cost
cap (:mod:`kgcore.methods.kernel.budget`: the method's :attr:`StepMethod.budget`, or the
``budget`` given to ``run``, ``arun`` or ``steps``).

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

import dataclasses
import functools
import itertools
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
from kgcore.methods.kernel.answer_reading import final_answer
from kgcore.methods.kernel.answer_sanity import plausible_answer, sane_answer
from kgcore.methods.kernel.budget import Budget, check_budget, within_budget
from kgcore.methods.kernel.meter import RunMeter
from kgcore.validation import UNKNOWN, check_question, check_topic_entities, is_unknown_answer

R = TypeVar("R")
T = TypeVar("T")


def guard_result(result: Any) -> Any:
    """Give ``result`` its :func:`~kgcore.methods.kernel.final_answer` (the last check of
    every method's answer); ``extra["answer_guarded"]`` says when it changed the answer.

    An answer the result says is not grounded (``grounded=False``: the model's own knowledge)
    must also be sane for the result's question
    (:func:`~kgcore.methods.kernel.answer_sanity.sane_answer`: no refusal, option label,
    score, bare number where no quantity is asked, ...), else it is ``Unknown``. Whoever
    vouches for it, a name that is an implausible number for the question (a year of
    ``-1e308``, :func:`~kgcore.methods.kernel.answer_sanity.plausible_answer`) is dropped; an
    ``Unknown`` answer is grounded (it claims nothing). ``Unknown`` is the typed
    :data:`~kgcore.validation.UNKNOWN`, so a node named ``Unknown`` stays an answer.
    """
    answer = getattr(result, "answer", None)
    if not isinstance(answer, str):
        return result
    guarded = final_answer(answer)
    question = getattr(result, "question", None)
    question = question if isinstance(question, str) else None
    if not is_unknown_answer(guarded):  # a graph's literal too: no year of -1e308
        guarded = plausible_answer(guarded, question) or UNKNOWN
    if getattr(result, "grounded", True) is False and not is_unknown_answer(guarded):
        guarded = sane_answer(guarded, question) or UNKNOWN
    if is_unknown_answer(guarded) and hasattr(result, "grounded"):
        result.grounded = True
    if guarded != answer or is_unknown_answer(guarded) != is_unknown_answer(answer):
        result.answer = guarded
        extra = getattr(result, "extra", None)
        if isinstance(extra, dict):
            extra["answer_guarded"] = True
    return result


_RUN_NUMBERS = itertools.count(1)


def in_cache_scope(steps: Steps[T], scope: str | None = None) -> Steps[T]:
    """Drive ``steps``, stamping every request with one run's ``cache_scope``.

    A local model may reuse the evaluated prompts of requests that share a scope and starts a
    new scope from an empty context (``ChatLlamaCppLocal.run_cache``), so a run's replies
    depend on its own calls only, not on what ran before it. ``scope`` defaults to a new
    ``"run-N"``; only whether two scopes are equal matters. The outermost scope wins, so a run
    made inside another (a fallback method, say) shares the outer run's scope.

    >>> from kgcore.llm import LLMRequest, ScriptedLLM
    >>> from kgcore.llm.protocol import run_steps
    >>> def two_calls():
    ...     first = yield LLMRequest.from_prompt("a", purpose="io")
    ...     second = yield LLMRequest.from_prompt("b", purpose="io")
    ...     return first.text + second.text
    >>> seen = []
    >>> class Recording(ScriptedLLM):
    ...     def generate(self, request):
    ...         seen.append(request.cache_scope)
    ...         return super().generate(request)
    >>> run_steps(in_cache_scope(two_calls(), "run-a"), Recording(["x", "y"]))
    'xy'
    >>> seen
    ['run-a', 'run-a']
    """
    scope = scope or f"run-{next(_RUN_NUMBERS)}"
    try:
        request = next(steps)
        while True:
            reply = yield dataclasses.replace(request, cache_scope=scope)
            request = steps.send(reply)
    except StopIteration as stop:
        return stop.value


def guarded_steps(steps: Callable[..., Steps[Any]]) -> Callable[..., Steps[Any]]:
    """``steps`` with the input checks and the answer guard of this module's docstring."""
    if getattr(steps, "_kg_guarded", False):
        return steps

    @functools.wraps(steps)
    def wrapper(
        self: Any,
        question: str,
        topic_entities: Sequence[str] | None = None,
        budget: Budget | None = None,
    ) -> Steps[Any]:
        checked = check_question(question)
        topics = check_topic_entities(topic_entities)
        limits = check_budget(budget) if budget is not None else getattr(self, "budget", None)
        result = yield from within_budget(in_cache_scope(steps(self, checked, topics)), limits)
        return guard_result(result)

    wrapper._kg_guarded = True  # type: ignore[attr-defined]
    return wrapper


class StepMethod(ABC, Generic[R]):
    """Base of the QA methods (FastToG, ToG, CGPE, the prompt baselines, ...).

    A subclass writes its algorithm in :meth:`steps`, with the shared pieces of
    :mod:`kgcore.methods.kernel` and a :class:`RunMeter` (:meth:`meter`) for its accounting.

    :attr:`budget` is the method's per-question cost cap (a
    :class:`~kgcore.methods.kernel.budget.Budget`, ``None``: none); ``run`` and ``arun`` take
    one for a single run instead (``Budget()`` lifts the method's own for that run).
    """

    _budget: Budget | None = None

    @property
    def budget(self) -> Budget | None:
        """The per-question cost cap of every run of this method (``None``: none)."""
        return self._budget

    @budget.setter
    def budget(self, value: Budget | None) -> None:
        self._budget = check_budget(value)

    def with_budget(self, budget: Budget | None = None, **limits: int | None) -> StepMethod[R]:
        """Set :attr:`budget` (a :class:`~kgcore.methods.kernel.budget.Budget`, or its
        settings as keywords: ``with_budget(max_llm_calls=2)``) and return the method."""
        self.budget = budget if budget is not None or not limits else Budget(**limits)
        return self

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "steps" in cls.__dict__ and not getattr(cls.steps, "__isabstractmethod__", False):
            cls.steps = guarded_steps(cls.__dict__["steps"])  # type: ignore[method-assign]

    @staticmethod
    def meter() -> RunMeter:
        """A fresh :class:`RunMeter` for one run."""
        return RunMeter()

    @abstractmethod
    def steps(self, question: str, topic_entities: Sequence[str] | None = None) -> Steps[R]:
        """The method as a step generator yielding LLM requests and returning its result."""

    def run(
        self,
        question: str,
        llm: ChatLLM,
        topic_entities: Sequence[str] | None = None,
        retry: RetryPolicy | None = None,
        budget: Budget | None = None,
    ) -> R:
        """Answer ``question`` with a synchronous model (``retry``: see :class:`RetryPolicy`;
        ``budget``: this run's cost cap, default :attr:`budget`)."""
        return run_steps(self.budgeted_steps(question, topic_entities, budget), llm, retry)

    async def arun(
        self,
        question: str,
        llm: AsyncChatLLM | ChatLLM,
        topic_entities: Sequence[str] | None = None,
        retry: RetryPolicy | None = None,
        budget: Budget | None = None,
    ) -> R:
        """Answer ``question`` with an asynchronous model (or a sync one, in a thread); the
        graph work runs in the graph executor, never on the event loop."""
        steps = self.budgeted_steps(question, topic_entities, budget)
        return await arun_steps(steps, llm, retry)

    def budgeted_steps(
        self,
        question: str,
        topic_entities: Sequence[str] | None = None,
        budget: Budget | None = None,
    ) -> Steps[R]:
        """:meth:`steps` within ``budget`` (default: :attr:`budget`)."""
        return self.steps(question, topic_entities, budget)  # type: ignore[call-arg]
