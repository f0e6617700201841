"""How a method's graph work runs under ``asyncio``: awaited on the event loop, never blocking it.

A method is written once, as synchronous code between its model calls (the step generator of
:mod:`kgcore.llm.protocol`). The async driver runs that code with :func:`run_awaited`: in a
greenlet on the event loop, as SQLAlchemy's asyncio extension runs its synchronous core. Where
the code waits on I/O it calls :func:`await_io` with a coroutine (a Bolt store's read through
the driver's ``AsyncDriver``), and the loop awaits that coroutine while other questions run;
where it computes for long (sentence embeddings, community detection) it calls
:func:`off_loop`, which runs the function in the graph executor, a bounded thread pool, and
awaits it. Outside :func:`run_awaited` (the sync ``run``), both calls simply run what they are
given.

The graph executor has :func:`graph_workers` threads (``KG_GRAPH_WORKERS``, default: the
number of CPUs, at most 4); :func:`set_graph_workers` changes it. The thread policy: the local
models (sentence embeddings, Graph2Text) compute with :func:`torch_threads` threads each
(``KG_TORCH_THREADS``, default: half the CPUs, at least 1 and at most 4), set in torch when
such a model loads (:func:`apply_torch_threads`), so that concurrent questions, or another
busy process, do not oversubscribe the cores. ``docs/concurrency.md`` says how the pieces fit
together.

Example
-------
>>> import asyncio
>>> async def double(x):
...     await asyncio.sleep(0)
...     return 2 * x
>>> def work(x):  # synchronous code that waits on a coroutine and computes off the loop
...     return await_io(double(x)) + off_loop(sum, [1, 2])
>>> asyncio.run(run_awaited(work, 5))
13
>>> work.__name__, in_awaited_run()
('work', False)
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import os
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import greenlet

from kgcore.exceptions import InvalidSettingError

__all__ = [
    "InFlightLimit",
    "apply_torch_threads",
    "await_io",
    "graph_workers",
    "in_awaited_run",
    "off_loop",
    "run_awaited",
    "run_graph_work",
    "run_blocking",
    "set_graph_workers",
    "set_torch_threads",
    "torch_threads",
]

T = TypeVar("T")

#: Threads of the graph executor at most by default (a small machine's cores, not more).
DEFAULT_MAX_WORKERS = 4

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_workers: int | None = None
_torch_threads: int | None = None


class _AwaitedRun(greenlet.greenlet):
    """The greenlet of one :func:`run_awaited` call: what it hands up is awaited."""


class _Handed:
    """A coroutine handed up to the loop (so a plain value returned is never mistaken for it)."""

    __slots__ = ("awaitable",)

    def __init__(self, awaitable: Awaitable[Any]) -> None:
        self.awaitable = awaitable


def _default_workers() -> int:
    text = os.environ.get("KG_GRAPH_WORKERS", "").strip()
    if text:
        return _checked(int(text) if text.isdigit() else text)
    return max(1, min(DEFAULT_MAX_WORKERS, os.cpu_count() or 1))


def _checked(count: object) -> int:
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 256:
        raise InvalidSettingError(f"thread counts must be integers in [1, 256], got {count!r}")
    return count


def torch_threads() -> int:
    """Threads each local model's torch work uses (:func:`set_torch_threads`,
    ``KG_TORCH_THREADS``; default half the CPUs, at least 1, at most 4)."""
    global _torch_threads
    with _lock:
        if _torch_threads is None:
            text = os.environ.get("KG_TORCH_THREADS", "").strip()
            cpus = os.cpu_count() or 1
            default = max(1, min(DEFAULT_MAX_WORKERS, cpus // 2))
            _torch_threads = _checked(int(text) if text.isdigit() else text) if text else default
        return _torch_threads


def set_torch_threads(count: int) -> None:
    """Use ``count`` threads (1 to 256) for torch work; applied now if torch is loaded."""
    global _torch_threads
    count = _checked(count)
    with _lock:
        _torch_threads = count
    apply_torch_threads()


def apply_torch_threads() -> None:
    """Set torch's intra-op threads to :func:`torch_threads` (when torch is imported)."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != torch_threads():
        torch.set_num_threads(torch_threads())


def graph_workers() -> int:
    """Threads of the graph executor (:func:`set_graph_workers`, ``KG_GRAPH_WORKERS``)."""
    global _workers
    with _lock:
        if _workers is None:
            _workers = _default_workers()
        return _workers


def set_graph_workers(count: int) -> None:
    """Use ``count`` threads (1 to 256) for the graph work run off the event loop; the
    running executor finishes its work and a new one starts at the next call."""
    global _executor, _workers
    count = _checked(count)
    with _lock:
        old, _executor, _workers = _executor, None, count
    if old is not None:
        old.shutdown(wait=False)


def _graph_executor() -> ThreadPoolExecutor:
    global _executor
    size = graph_workers()
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="kg-graph")
        return _executor


def in_awaited_run() -> bool:
    """Whether the caller runs inside :func:`run_awaited` (on the event loop)."""
    return isinstance(greenlet.getcurrent(), _AwaitedRun)


def await_io(coroutine: Coroutine[Any, Any, T]) -> T:
    """The value of ``coroutine``, awaited by the event loop when called inside
    :func:`run_awaited`, else run to its end here (``asyncio.run``: no loop may be running in
    this thread)."""
    current = greenlet.getcurrent()
    if isinstance(current, _AwaitedRun):
        return current.parent.switch(_Handed(coroutine))
    return asyncio.run(coroutine)


def off_loop(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``: in the graph executor, awaited, inside :func:`run_awaited`; here
    otherwise. For computing work that would hold the event loop (embedding, detection)."""
    current = greenlet.getcurrent()
    if not isinstance(current, _AwaitedRun):
        return function(*args)
    context = contextvars.copy_context()
    call = functools.partial(context.run, function, *args)
    future = asyncio.get_running_loop().run_in_executor(_graph_executor(), call)
    return current.parent.switch(_Handed(future))


async def run_graph_work(function: Callable[..., T], *args: Any, on_loop: bool) -> T:
    """``function(*args)`` awaited: on the loop (:func:`run_awaited`) when ``on_loop`` (its
    store's reads are in memory or awaited: :func:`~kgcore.graph.store.reads_on_loop`), else
    in a worker thread (:func:`run_blocking`)."""
    if on_loop:
        return await run_awaited(function, *args)
    return await run_blocking(function, *args)


class InFlightLimit:
    """At most ``limit`` questions in flight (``None``: no limit), for one retriever or chain:
    :meth:`hold` for synchronous callers (across threads), :meth:`ahold` for asynchronous
    ones (per event loop; the excess waits its turn, and a cancelled waiter leaves the queue).

    >>> import asyncio
    >>> limit = InFlightLimit(2)
    >>> async def ask():
    ...     async with limit.ahold():
    ...         await asyncio.sleep(0.01)
    ...         return limit.in_flight
    >>> async def six():
    ...     return await asyncio.gather(*(ask() for _ in range(6)))
    >>> max(asyncio.run(six()))
    2
    """

    def __init__(self, limit: int | None = None) -> None:
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            raise InvalidSettingError(f"max_concurrency must be None or an integer >= 1: {limit!r}")
        self.limit = limit
        self.in_flight = 0
        self._threads = threading.BoundedSemaphore(limit) if limit else None
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """A synchronous question's turn."""
        if self._threads is None:
            yield
            return
        with self._threads:
            self.in_flight += 1
            try:
                yield
            finally:
                self.in_flight -= 1

    @contextlib.asynccontextmanager
    async def ahold(self) -> AsyncIterator[None]:
        """An asynchronous question's turn."""
        if self.limit is None:
            yield
            return
        loop = asyncio.get_running_loop()
        gate = self._loops.get(loop)
        if gate is None:
            gate = self._loops[loop] = asyncio.Semaphore(self.limit)
        async with gate:
            self.in_flight += 1
            try:
                yield
            finally:
                self.in_flight -= 1


async def run_blocking(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a worker thread of the loop's default executor (bounded by
    ``asyncio``; a copy of the caller's ``contextvars``), awaited: for work that may block on
    I/O (an app's own graph store, a model's load), so that it never takes the graph
    executor's few threads."""
    return await asyncio.to_thread(function, *args)


async def run_awaited(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` run on the event loop, its :func:`await_io` and :func:`off_loop`
    calls awaited (other tasks run meanwhile). Cancelling the awaiting task raises
    ``CancelledError`` inside ``function`` at the call it waits in, so its work stops there."""
    run = _AwaitedRun(function)
    run.gr_context = contextvars.copy_context()
    handed = run.switch(*args)
    while not run.dead:
        try:
            value = await handed.awaitable
        except BaseException as err:  # noqa: BLE001 - thrown into the run, where it belongs
            handed = run.throw(err)
        else:
            handed = run.switch(value)
    return handed
