"""The drivers: run a step generator against a model, :func:`run_steps` synchronously and
:func:`arun_steps` asynchronously.

Every call goes through the same guard: the request gets the policy's timeout, transient errors
are retried (:mod:`kgcore.llm.protocol.retry`), and the reply's text is cut to
:func:`reply_char_cap` characters and its time measured before the method reads it, so no
step's cost grows with the size of a reply.

Whatever a model raises (any :class:`Exception`: ``RuntimeError``, ``KeyError``,
``MemoryError``, ``RecursionError``, ``UnicodeDecodeError``, a provider's own errors) ends as a
:class:`~kgcore.exceptions.LLMResponseError` naming the step, with the model's error as its
``__cause__``; only ``KeyboardInterrupt``, ``SystemExit`` and cancellation pass through. A call
with a timeout (``RetryPolicy(timeout=...)`` or :attr:`LLMRequest.timeout`) is cut off after it,
for synchronous models too: their call runs in a worker thread the driver stops waiting for.

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
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from kgcore.llm.protocol.retry import DEFAULT_RETRY, CallGuard, RetryPolicy
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
    if reply.sent is not True:  # a model's reply was sent, whatever it says (it is counted)
        reply = replace(reply, sent=True)
    if reply.seconds:
        return reply
    return replace(reply, seconds=time.perf_counter() - started)


@dataclass(frozen=True)
class _Raised:
    """An error a model raised in a worker thread, carried across as a value: a
    ``StopIteration`` cannot be set on an asyncio future (the loop would wait forever)."""

    error: Exception


def _outcome(llm: ChatLLM, request: LLMRequest) -> object:
    """``llm.generate(request)``, or what it raised as a :class:`_Raised`."""
    try:
        return llm.generate(request)
    except Exception as err:  # noqa: BLE001 - re-raised by the waiting driver (_unwrap)
        return _Raised(err)


def _unwrap(outcome: object) -> object:
    """The reply of :func:`_outcome`, or its error raised again."""
    if isinstance(outcome, _Raised):
        raise outcome.error
    return outcome


def _in_thread(llm: ChatLLM, request: LLMRequest) -> Future[object]:
    """Start ``llm.generate(request)`` in a daemon thread; its outcome lands in the future.

    The future is marked running before the call, so a caller that stops waiting cannot cancel
    it under the thread; the thread is abandoned, not killed (Python cannot stop a thread), and
    being a daemon it never holds up the interpreter's exit.
    """
    future: Future[object] = Future()

    def work() -> None:
        if not future.set_running_or_notify_cancel():  # pragma: no cover - never cancelled
            return
        try:
            future.set_result(_outcome(llm, request))
        except BaseException as err:  # noqa: BLE001 - an interrupt, handed to the driver
            future.set_exception(err)

    threading.Thread(target=work, name=f"llm-{request.purpose}", daemon=True).start()
    return future


def _timed_out(request: LLMRequest) -> TimeoutError:
    return TimeoutError(f"no reply within the timeout of {request.timeout:g} s")


def _generate(llm: ChatLLM, request: LLMRequest) -> object:
    """``llm.generate(request)``, cut off after ``request.timeout`` seconds when it has one.

    With a timeout the call runs in a worker thread (:func:`_in_thread`) and the driver stops
    waiting at the timeout with a :class:`TimeoutError`, which is transient (retried).
    """
    if request.timeout is None:
        return llm.generate(request)
    future = _in_thread(llm, request)
    try:
        outcome = future.result(timeout=request.timeout)
    except FutureTimeout:
        raise _timed_out(request) from None
    return _unwrap(outcome)


def _call(llm: ChatLLM, request: LLMRequest, guard: CallGuard) -> LLMReply:
    tries = guard.attempts()
    for attempt in range(1, tries + 1):
        started = time.perf_counter()
        try:
            return _capped(_generate(llm, request), request, started)
        except Exception as err:  # noqa: BLE001 - any model failure: classified by the guard
            if guard.retries(request, err, attempt, tries):
                guard.wait(attempt)
                continue
            return guard.give_up(request, err, tries)
    raise AssertionError("unreachable")  # pragma: no cover


async def _agenerate(llm: AsyncChatLLM | ChatLLM, request: LLMRequest) -> object:
    """One model call on the event loop: an async model cancelled after ``request.timeout``, a
    sync one in a thread that the loop stops waiting for at the timeout."""
    if isinstance(llm, AsyncChatLLM):
        return await asyncio.wait_for(llm.agenerate(request), request.timeout)
    if request.timeout is None:
        return _unwrap(await asyncio.to_thread(_outcome, llm, request))
    future = _in_thread(llm, request)
    try:
        outcome = await asyncio.wait_for(asyncio.wrap_future(future), request.timeout)
    except TimeoutError:
        raise _timed_out(request) from None
    return _unwrap(outcome)


async def _acall(llm: AsyncChatLLM | ChatLLM, request: LLMRequest, guard: CallGuard) -> LLMReply:
    tries = guard.attempts()
    for attempt in range(1, tries + 1):
        started = time.perf_counter()
        try:
            return _capped(await _agenerate(llm, request), request, started)
        except Exception as err:  # noqa: BLE001 - any model failure: classified by the guard
            if guard.retries(request, err, attempt, tries):
                await guard.await_wait(attempt)
                continue
            return guard.give_up(request, err, tries)
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
