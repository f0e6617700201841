"""How a method's graph work runs under ``asyncio``: in a bounded executor, its I/O awaited on
the event loop, which it never holds.

A method is written once, as synchronous code between its model calls (the step generator of
:mod:`kgcore.llm.protocol`). The async driver runs each stretch of that code with
:func:`run_graph_work`: in a thread of the *graph executor*, a bounded pool, so that its
computing (path walks, sampling, community detection, sentence embeddings) never holds the
event loop. Where that code waits on a server it calls :func:`await_io` with a coroutine (a
Bolt store's read through the driver's ``AsyncDriver``): the coroutine runs on the caller's
event loop, with its deadline there, and no driver thread waits on a socket. Cancelling the
awaiting task stops the run at its next :func:`await_io` (the pending read is cancelled).
Outside :func:`run_graph_work` (the sync ``run``), :func:`await_io` runs the coroutine to its
end in the calling thread.

The graph executor has :func:`graph_workers` threads (``KG_GRAPH_WORKERS``, default
:data:`DEFAULT_WORKERS`): questions doing graph work at once, the rest queue;
:func:`set_graph_workers` changes it. Of those, at most :func:`graph_compute` compute at once
(``KG_GRAPH_COMPUTE``, default :data:`DEFAULT_COMPUTE`); the others wait on a server or for
their turn without taking Python's GIL, so the event loop's thread gets it within a switch
interval or two. The thread policy: the local models (sentence embeddings,
Graph2Text) compute with :func:`torch_threads` threads each (``KG_TORCH_THREADS``, default
half the CPUs, at least 1 and at most 4), set in torch when such a model loads
(:func:`apply_torch_threads`), so that concurrent questions, or another busy process, do not
oversubscribe the cores. The collector policy: what lives as long as the process (a large
graph loaded in memory, a local model, a store's filled caches) is taken out of the cycle
collector's sight (:func:`keep_out_of_collections`, ``gc.freeze``), since a full collection
over it holds the GIL, and so the event loop, for tenths of a second; ``KG_GC_FREEZE=0``
turns this off. ``docs/concurrency.md`` says how the pieces fit together.

Example
-------
>>> import asyncio
>>> async def double(x):
...     await asyncio.sleep(0)
...     return 2 * x
>>> def work(x):  # synchronous graph work that waits on a coroutine
...     return await_io(double(x)) + 1, in_awaited_run()
>>> asyncio.run(run_graph_work(work, 5))
(11, True)
>>> work(5)  # sync: the coroutine runs here
(11, False)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import gc
import os
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from kgcore.exceptions import InvalidSettingError

__all__ = [
    "DEFAULT_COMPUTE",
    "DEFAULT_WORKERS",
    "InFlightLimit",
    "apply_torch_threads",
    "await_io",
    "graph_compute",
    "graph_workers",
    "in_awaited_run",
    "keep_out_of_collections",
    "run_graph_work",
    "set_graph_compute",
    "set_graph_workers",
    "set_torch_threads",
    "torch_threads",
]

T = TypeVar("T")

#: Threads of the graph executor by default: a stretch of graph work waiting on a server holds
#: one, so it is more than the cores; computing is bounded by torch's threads.
DEFAULT_WORKERS = 16
#: Graph-work threads computing at once by default: with more, the event loop's thread waits
#: for the GIL behind every one of them (``benchmarks/load.py``'s loop gap).
DEFAULT_COMPUTE = 2
#: Seconds between two looks of a waiting :func:`await_io` at its run's cancellation.
CANCEL_POLL_S = 0.05

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_workers: int | None = None
_torch_threads: int | None = None
_compute: int | None = None
_compute_gate: threading.Semaphore | None = None
#: The event loop, cancellation event and compute gate of the run a thread's graph work is for.
_Run = tuple[asyncio.AbstractEventLoop, threading.Event, threading.Semaphore]
_RUN: contextvars.ContextVar[_Run | None] = contextvars.ContextVar("kg_graph_run", default=None)


def _from_env(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if text:
        return _checked(int(text) if text.isdigit() else text)
    return default


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
            default = max(1, min(4, cpus // 2))
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


def keep_out_of_collections(collect: bool = True) -> None:
    """Take every object alive now out of the cycle collector's sight (``gc.freeze``), after
    a full collection when ``collect`` (at load time; without it, cyclic garbage alive now is
    never freed). Objects freed by reference counting still are. Off with ``KG_GC_FREEZE=0``.
    """
    if os.environ.get("KG_GC_FREEZE", "1").strip() == "0":
        return
    if collect:
        gc.collect()
    gc.freeze()


def graph_workers() -> int:
    """Threads of the graph executor (:func:`set_graph_workers`, ``KG_GRAPH_WORKERS``)."""
    global _workers
    with _lock:
        if _workers is None:
            _workers = _from_env("KG_GRAPH_WORKERS", DEFAULT_WORKERS)
        return _workers


def graph_compute() -> int:
    """Graph-work threads computing at once (:func:`set_graph_compute`, ``KG_GRAPH_COMPUTE``)."""
    return _gate()[0]


def set_graph_compute(count: int) -> None:
    """Let ``count`` threads (1 to 256) of graph work compute at once, from the next run."""
    global _compute, _compute_gate
    count = _checked(count)
    with _lock:
        _compute, _compute_gate = count, threading.Semaphore(count)


def _gate() -> tuple[int, threading.Semaphore]:
    global _compute, _compute_gate
    with _lock:
        if _compute is None or _compute_gate is None:
            _compute = _from_env("KG_GRAPH_COMPUTE", DEFAULT_COMPUTE)
            _compute_gate = threading.Semaphore(_compute)
        return _compute, _compute_gate


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
            # All threads now: a thread started later, from the event loop while the others
            # compute, holds the loop until it is scheduled.
            started = threading.Barrier(size + 1)
            for _ in range(size):
                _executor.submit(started.wait, 30)
            started.wait(30)
        return _executor


def in_awaited_run() -> bool:
    """Whether the caller's graph work runs for an event loop (:func:`run_graph_work`)."""
    return _RUN.get() is not None


def await_io(coroutine: Coroutine[Any, Any, T]) -> T:
    """The value of ``coroutine``: run on the event loop of the caller's run when there is
    one (:func:`run_graph_work`; ``asyncio.CancelledError`` when the run is cancelled while
    it waits, the coroutine cancelled too), else to its end here (``asyncio.run``)."""
    run = _RUN.get()
    if run is None:
        return asyncio.run(coroutine)
    loop, cancelled, gate = run
    if cancelled.is_set():
        coroutine.close()
        raise asyncio.CancelledError
    future = asyncio.run_coroutine_threadsafe(coroutine, loop)
    gate.release()  # waiting is not computing: another question's work may go on
    try:
        while True:
            try:
                return future.result(timeout=CANCEL_POLL_S)
            except concurrent.futures.TimeoutError:
                if cancelled.is_set():
                    future.cancel()
                    raise asyncio.CancelledError from None
            except concurrent.futures.CancelledError:
                raise asyncio.CancelledError from None
    finally:
        gate.acquire()


def _computing(gate: threading.Semaphore, call: Callable[[], T]) -> T:
    with gate:
        return call()


async def run_graph_work(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in the graph executor, awaited (a copy of the caller's
    ``contextvars``; its :func:`await_io` calls run on this loop). Cancelling the awaiting
    task returns at once; the work stops at its next :func:`await_io`."""
    loop = asyncio.get_running_loop()
    cancelled = threading.Event()
    gate = _gate()[1]
    context = contextvars.copy_context()
    context.run(_RUN.set, (loop, cancelled, gate))
    call = functools.partial(_computing, gate, functools.partial(context.run, function, *args))
    try:
        return await loop.run_in_executor(_graph_executor(), call)
    except asyncio.CancelledError:
        cancelled.set()
        raise


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
