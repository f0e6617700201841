"""The drivers: run a step generator against a model, :func:`run_steps` synchronously and
:func:`arun_steps` asynchronously.

Every call goes through the same guard: the request gets the policy's timeout, transient errors
are retried (:mod:`kgcore.llm.protocol.retry`), and the reply's text is cut to
:func:`reply_char_cap` characters and its time measured before the method reads it, so no
step's cost grows with the size of a reply.

Example
-------
>>> request = LLMRequest.from_prompt("hello", purpose="io", max_tokens=16)
>>> def ask():
...     reply = yield request
...     return len(reply.text)
>>> class Chatty:
...     def generate(self, request):
...         return LLMReply(text="word " * 10_000)
>>> run_steps(ask(), Chatty()) == reply_char_cap(request) < len("word " * 10_000)
True
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from kgcore.llm.protocol.retry import DEFAULT_RETRY, CallGuard, RetryPolicy, is_transient
from kgcore.llm.protocol.types import AsyncChatLLM, ChatLLM, LLMReply, LLMRequest, Steps
from kgcore.validation import MIN_REPLY_CAP_CHARS

__all__ = ["arun_steps", "reply_char_cap", "run_steps"]

T = TypeVar("T")


def reply_char_cap(request: LLMRequest) -> int:
    """How many characters of a reply to ``request`` are read.

    Eight characters a requested token, and never fewer than
    :data:`~kgcore.validation.MIN_REPLY_CAP_CHARS`: a reply within its token budget is never cut.
    """
    return max(MIN_REPLY_CAP_CHARS, 8 * max(0, int(request.max_tokens)))


def _capped(reply: object, request: LLMRequest, started: float) -> LLMReply:
    """The reply with its text cut to :func:`reply_char_cap` and its time measured."""
    if not isinstance(reply, LLMReply):
        reply = LLMReply(text="")
    text = reply.text if isinstance(reply.text, str) else ""
    cap = reply_char_cap(request)
    if len(text) > cap or text is not reply.text:
        reply = replace(reply, text=text[:cap])
    if reply.seconds:
        return reply
    return replace(reply, seconds=time.perf_counter() - started)


def _call(llm: ChatLLM, request: LLMRequest, guard: CallGuard) -> LLMReply:
    tries = guard.attempts()
    for attempt in range(1, tries + 1):
        started = time.perf_counter()
        try:
            return _capped(llm.generate(request), request, started)
        except Exception as err:  # noqa: BLE001 - classified just below
            if not is_transient(err):
                raise
            if attempt == tries:
                return guard.give_up(request, err, tries)
            guard.wait(attempt)
    raise AssertionError("unreachable")  # pragma: no cover


async def _acall(llm: AsyncChatLLM | ChatLLM, request: LLMRequest, guard: CallGuard) -> LLMReply:
    tries = guard.attempts()
    for attempt in range(1, tries + 1):
        started = time.perf_counter()
        try:
            if isinstance(llm, AsyncChatLLM):
                reply = await asyncio.wait_for(llm.agenerate(request), request.timeout)
            else:
                # A thread cannot be cancelled: a sync model only gets the timeout as a hint.
                reply = await asyncio.to_thread(llm.generate, request)
            return _capped(reply, request, started)
        except Exception as err:  # noqa: BLE001 - classified just below
            if not is_transient(err):
                raise
            if attempt == tries:
                return guard.give_up(request, err, tries)
            await guard.await_wait(attempt)
    raise AssertionError("unreachable")  # pragma: no cover


def run_steps(steps: Steps[T], llm: ChatLLM, retry: RetryPolicy | None = None) -> T:
    """Drive a step generator with a synchronous model and return its result.

    Replies are capped and transient errors retried as ``retry`` says (default
    :data:`~kgcore.llm.protocol.retry.DEFAULT_RETRY`); see :mod:`kgcore.llm.protocol`.
    """
    guard = CallGuard(retry or DEFAULT_RETRY)
    try:
        request = next(steps)
        while True:
            request = guard.prepare(request)
            request = steps.send(_call(llm, request, guard))
    except StopIteration as stop:
        return stop.value


@dataclass(frozen=True)
class _Finished(Generic[T]):
    """The result of a step generator that has returned."""

    value: T


def _resume(steps: Steps[T], reply: LLMReply | None) -> LLMRequest | _Finished[T]:
    """Run ``steps`` up to its next request, or to its end (``StopIteration`` cannot cross a
    thread's future, so the end is returned as a :class:`_Finished`)."""
    try:
        return next(steps) if reply is None else steps.send(reply)
    except StopIteration as stop:
        return _Finished(stop.value)


async def arun_steps(
    steps: Steps[T], llm: AsyncChatLLM | ChatLLM, retry: RetryPolicy | None = None
) -> T:
    """Drive a step generator with an asynchronous model (or a sync one, in a thread).

    The generator's own work between model calls (graph reads, community search, embedding,
    PCST) runs in a worker thread, so it never blocks the event loop: concurrent runs overlap
    their graph waits as they overlap their model calls.

    Example
    -------
    >>> def ask(question):
    ...     reply = yield LLMRequest.from_prompt(question, purpose="io")
    ...     return reply.text.upper()
    >>> class Echo:
    ...     async def agenerate(self, request):
    ...         return LLMReply(text=request.messages[-1].content)
    >>> asyncio.run(arun_steps(ask("hello"), Echo()))
    'HELLO'
    """
    guard = CallGuard(retry or DEFAULT_RETRY)
    reply: LLMReply | None = None
    while True:
        step = await asyncio.to_thread(_resume, steps, reply)
        if isinstance(step, _Finished):
            return step.value
        reply = await _acall(llm, guard.prepare(step), guard)
