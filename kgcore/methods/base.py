"""The shape every QA method shares: a step generator, driven sync or async.

A method implements :meth:`StepMethod.steps`; :meth:`~StepMethod.run` and
:meth:`~StepMethod.arun` drive it with a synchronous or an asynchronous model
(see :mod:`kgcore.llm.protocol`).

Every subclass's ``steps`` is wrapped once, when the class is defined, so the same guards hold
for every method, whoever drives it (``run``, ``arun``, the evaluation harness, the adapters):
the question and the caller's topic entities are checked against the limits of
:mod:`kgcore.validation` before any work, a final answer that is not a short printable
phrase becomes ``Unknown`` and an unnamed graph node (``m.0w4dx1v``) is never an answer
(``extra["answer_guarded"]`` says so), and every request of one run
carries that run's ``cache_scope`` (:func:`in_cache_scope`).

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
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from kgcore.graph.compound import is_unnamed_node
from kgcore.llm.protocol import (
    AsyncChatLLM,
    ChatLLM,
    RetryPolicy,
    Steps,
    UsageMeter,
    arun_steps,
    run_steps,
)
from kgcore.validation import UNKNOWN, answer_phrase, check_question, check_topic_entities

if TYPE_CHECKING:
    from kgcore.methods.result import MethodResult

R = TypeVar("R")
T = TypeVar("T")
M = TypeVar("M", bound="MethodResult")


@dataclass
class RunMeter:
    """The accounting of one run, kept the same way by every method.

    LLM calls, tokens and seconds, and the replies a method could not use, are counted in
    :attr:`usage` (see :func:`kgcore.methods.kernel.ask_parsed`); graph work is timed with
    :meth:`graph` or :meth:`graph_steps`; :meth:`finish` copies it all into the result,
    unusable replies as ``extra["unparsed_replies"]``.

    Example
    -------
    >>> from kgcore.methods.result import MethodResult
    >>> meter = RunMeter()
    >>> with meter.graph():
    ...     pass
    >>> result = meter.finish(MethodResult(question="q", answer="a", method="io"))
    >>> result.extra["unparsed_replies"], result.total_seconds >= result.graph_seconds
    (0, True)
    """

    usage: UsageMeter = field(default_factory=UsageMeter)
    started: float = field(default_factory=time.perf_counter)
    graph_seconds: float = 0.0

    @contextmanager
    def graph(self) -> Iterator[None]:
        """Time a block of graph work (no model call inside)."""
        tick = time.perf_counter()
        try:
            yield
        finally:
            self.graph_seconds += time.perf_counter() - tick

    def graph_steps(self, steps: Steps[T]) -> Steps[T]:
        """Drive ``steps`` and count its time, less the model's, as graph time."""
        tick = time.perf_counter()
        llm_before = self.usage.llm_seconds
        value = yield from steps
        spent = time.perf_counter() - tick - (self.usage.llm_seconds - llm_before)
        self.graph_seconds += max(spent, 0.0)
        return value

    def absorb(self, result: MethodResult) -> None:
        """Add the usage of a run made inside this one (a CoT-SC fallback, say)."""
        self.usage.calls += result.llm_calls
        self.usage.llm_seconds += result.llm_seconds
        self.usage.unparsed += int(result.extra.get("unparsed_replies", 0))
        if result.prompt_tokens is not None:
            self.usage.tokens_reported = True
            self.usage.prompt_tokens += result.prompt_tokens
            self.usage.completion_tokens += result.completion_tokens or 0

    def finish(self, result: M) -> M:
        """Copy usage, unusable replies and timings into ``result``; returns it."""
        result.record_usage(self.usage)
        result.extra["unparsed_replies"] = self.usage.unparsed
        result.graph_seconds = self.graph_seconds
        result.total_seconds = time.perf_counter() - self.started
        return result


def named_answer(answer: str) -> str:
    """``answer`` without the names that are unnamed graph nodes (``m.0w4dx1v``: see
    :mod:`kgcore.graph.compound`), ``Unknown`` when nothing else is left.

    >>> named_answer("m.0w4dx1v; Jennifer Lawrence"), named_answer("m.0w4dx1v")
    ('Jennifer Lawrence', 'Unknown')
    """
    parts = [part.strip() for part in answer.split(";")]
    kept = [part for part in parts if not is_unnamed_node(part)]
    if len(kept) == len(parts):
        return answer
    return "; ".join(part for part in kept if part) or UNKNOWN


def guard_result(result: Any) -> Any:
    """Replace a result's answer by ``Unknown`` unless it is a short printable phrase, and
    drop the names in it that are unnamed graph nodes (:func:`named_answer`)."""
    answer = getattr(result, "answer", None)
    if not isinstance(answer, str) or answer == UNKNOWN:
        return result
    guarded = named_answer(answer) if answer_phrase(answer) is not None else UNKNOWN
    if guarded != answer:
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
        self: Any, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[Any]:
        checked = check_question(question)
        topics = check_topic_entities(topic_entities)
        result = yield from in_cache_scope(steps(self, checked, topics))
        return guard_result(result)

    wrapper._kg_guarded = True  # type: ignore[attr-defined]
    return wrapper


class StepMethod(ABC, Generic[R]):
    """Base of the QA methods (FastToG, ToG, CGPE, the prompt baselines, ...).

    A subclass writes its algorithm in :meth:`steps`, with the shared pieces of
    :mod:`kgcore.methods.kernel` and a :class:`RunMeter` (:meth:`meter`) for its accounting.
    """

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
