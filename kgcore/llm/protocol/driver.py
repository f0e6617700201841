"""The drivers: run a step generator against a model, :func:`run_steps` synchronously and
:func:`arun_steps` asynchronously.

Every call goes through the same guard: the request gets the policy's timeout, transient errors
are retried (:mod:`kgcore.llm.protocol.retry`), and the reply's text is cut to
:func:`reply_char_cap` characters and its time measured before the method reads it, so no
step's cost grows with the size of a reply.

Whatever a model raises (any :class:`Exception`: ``RuntimeError``, ``KeyError``,
``MemoryError``, ``RecursionError``, ``UnicodeDecodeError``, a provider's own errors) ends as a
:class:`~kgcore.exceptions.LLMResponseError` naming the step, with the model's error as its
``__cause__``; only ``KeyboardInterrupt``, ``SystemExit`` and cancellation pass through. Every
call has a deadline by default (``RetryPolicy(timeout=...)``, default
:data:`~kgcore.llm.protocol.retry.DEFAULT_LLM_TIMEOUT`, or :attr:`LLMRequest.timeout`) and is
cut off after it, for synchronous models too: their call runs in a reusable worker thread the
driver stops waiting for, and the request's ``cancel`` event tells the model to stop
(:mod:`kgcore.llm.protocol.workers` bounds the calls a model that ignores it leaves running).

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
import functools
import math
import threading
import time
from concurrent import futures
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from kgcore.concurrency import run_graph_work
from kgcore.heap import release_free_heap
from kgcore.llm.protocol.retry import DEFAULT_RETRY, CallGuard, RetryPolicy
from kgcore.llm.protocol.types import (
    AsyncChatLLM,
    ChatLLM,
    LLMReply,
    LLMRequest,
    Steps,
    token_count,
)
from kgcore.llm.protocol.workers import WORKERS, PendingCall
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
    """The reply with its text cut to :func:`reply_char_cap`, its token counts whole numbers
    >= 0 or ``None`` (:func:`~kgcore.llm.protocol.types.token_count`), and its time measured
    unless the model reported a finite, positive one, so a model's odd metadata never reaches
    a method's figures."""
    if not isinstance(reply, LLMReply):
        reply = LLMReply(text="")
    text = reply.text if isinstance(reply.text, str) else ""
    cap = reply_char_cap(request)
    if len(text) > cap or text is not reply.text:
        reply = replace(reply, text=text[:cap])
    if reply.sent is not True:  # a model's reply was sent, whatever it says (it is counted)
        reply = replace(reply, sent=True)
    prompt, completion = token_count(reply.prompt_tokens), token_count(reply.completion_tokens)
    if prompt is not reply.prompt_tokens or completion is not reply.completion_tokens:
        reply = replace(reply, prompt_tokens=prompt, completion_tokens=completion)
    seconds = reply.seconds
    usable = (
        isinstance(seconds, (int, float))
        and not isinstance(seconds, bool)
        and math.isfinite(seconds)
        and seconds > 0
    )
    if usable:
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


def _timed_out(request: LLMRequest) -> TimeoutError:
    return TimeoutError(f"no reply within the timeout of {request.timeout:g} s")


def _with_cancel(request: LLMRequest) -> LLMRequest:
    """``request`` with a fresh ``cancel`` event (this attempt's), unless the caller gave one."""
    return request if request.cancel is not None else replace(request, cancel=threading.Event())


#: Seconds the driver waits, after setting a call's ``cancel`` event, for the call to end
#: before it counts it as abandoned (a model that honours the event ends within a token).
CANCEL_GRACE = 0.25


def _give_up_on(call: PendingCall, request: LLMRequest) -> None:
    """The caller stops waiting for ``call``: the request's ``cancel`` event is set, and unless
    the call then ends within :data:`CANCEL_GRACE` seconds it is abandoned (counted against its
    model, :mod:`kgcore.llm.protocol.workers`)."""
    if request.cancel is not None:
        request.cancel.set()
        futures.wait([call.future], timeout=CANCEL_GRACE)
    if not call.future.done():
        WORKERS.abandon(call)


async def _agive_up_on(call: PendingCall, request: LLMRequest) -> None:
    """:func:`_give_up_on` without blocking the event loop."""
    if request.cancel is not None:
        request.cancel.set()
        await asyncio.wait([asyncio.wrap_future(call.future)], timeout=CANCEL_GRACE)
    if not call.future.done():
        WORKERS.abandon(call)


def _generate(llm: ChatLLM, request: LLMRequest, max_abandoned: int) -> object:
    """``llm.generate(request)``, cut off after ``request.timeout`` seconds when it has one.

    With a timeout the call runs in a reusable worker thread
    (:mod:`kgcore.llm.protocol.workers`) and the driver stops waiting at the timeout with a
    :class:`TimeoutError`, which is transient (retried): the call is abandoned and its
    ``cancel`` event set. An interrupt (Ctrl-C) while waiting abandons it too.
    """
    if request.timeout is None:
        return llm.generate(request)
    request = _with_cancel(request)
    call = WORKERS.submit(llm, functools.partial(_outcome, llm, request), max_abandoned)
    try:
        outcome = call.future.result(timeout=request.timeout)
    except FutureTimeout:
        _give_up_on(call, request)
        raise _timed_out(request) from None
    except BaseException:
        _give_up_on(call, request)
        raise
    return _unwrap(outcome)


def _call(llm: ChatLLM, request: LLMRequest, guard: CallGuard) -> LLMReply:
    tries = guard.attempts()
    for attempt in range(1, tries + 1):
        started = time.perf_counter()
        try:
            return _capped(_generate(llm, request, guard.policy.max_abandoned), request, started)
        except Exception as err:  # noqa: BLE001 - any model failure: classified by the guard
            if guard.retries(request, err, attempt, tries):
                guard.wait(attempt)
                continue
            return guard.give_up(request, err, tries)
    raise AssertionError("unreachable")  # pragma: no cover


async def _agenerate(
    llm: AsyncChatLLM | ChatLLM, request: LLMRequest, max_abandoned: int
) -> object:
    """One model call on the event loop: an async model cancelled after ``request.timeout``, a
    sync one in a worker thread that the loop stops waiting for at the timeout (the call is
    abandoned and its ``cancel`` event set, as in :func:`_generate`)."""
    if isinstance(llm, AsyncChatLLM):
        return await asyncio.wait_for(llm.agenerate(request), request.timeout)
    if request.timeout is None:
        return _unwrap(await asyncio.to_thread(_outcome, llm, request))
    request = _with_cancel(request)
    call = WORKERS.submit(llm, functools.partial(_outcome, llm, request), max_abandoned)
    try:
        outcome = await asyncio.wait_for(asyncio.wrap_future(call.future), request.timeout)
    except TimeoutError:
        await _agive_up_on(call, request)
        raise _timed_out(request) from None
    except BaseException:
        _give_up_on(call, request)  # cancelled or interrupted: no awaiting here
        raise
    return _unwrap(outcome)


async def _acall(llm: AsyncChatLLM | ChatLLM, request: LLMRequest, guard: CallGuard) -> LLMReply:
    tries = guard.attempts()
    for attempt in range(1, tries + 1):
        started = time.perf_counter()
        try:
            return _capped(
                await _agenerate(llm, request, guard.policy.max_abandoned), request, started
            )
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
        release_free_heap()
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
        release_free_heap()  # in the graph executor's thread: off the event loop
        return _Finished(stop.value)


async def arun_steps(
    steps: Steps[T],
    llm: AsyncChatLLM | ChatLLM,
    retry: RetryPolicy | None = None,
) -> T:
    """Drive a step generator with an asynchronous model (or a sync one, in a thread).

    The generator's own work between model calls (graph reads, community search, embedding,
    PCST) never blocks the event loop: each stretch of it runs in the bounded graph executor
    (:func:`kgcore.concurrency.run_graph_work`), and a Bolt store's reads in it are awaited
    on this loop through the driver's ``AsyncDriver``. Concurrent runs overlap their graph
    waits as they overlap their model calls.

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
        step = await run_graph_work(_resume, steps, reply)
        if isinstance(step, _Finished):
            return step.value
        reply = await _acall(llm, guard.prepare(step), guard)
