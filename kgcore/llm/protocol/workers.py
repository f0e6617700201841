"""Where a synchronous model's calls run when they have a deadline: reusable worker threads,
and a bound on the calls a model may leave running past their deadline.

A call with a deadline runs in a worker thread so the driver can stop waiting for it. Python
cannot stop a thread, so when the deadline passes the driver sets the request's
:attr:`~kgcore.llm.protocol.LLMRequest.cancel` event (a model that checks it, as the local
llama.cpp model does, ends its generation and frees the worker) and *abandons* the call: the
worker finishes it in the background and is then reused. A model that never checks the event
and never returns keeps its worker; so that such a model cannot take a new thread for every
call (300 runs once left 600 blocked threads), each model may have at most ``max_abandoned``
calls running past their deadline, and a call beyond that is refused at once with
:class:`ModelStuckError` (a :class:`TimeoutError`, so it is transient: retried after the
policy's backoff, then the step fails as any timed-out call does). :func:`worker_stats` counts
the threads, the abandoned calls still running and the refusals.

Workers are shared by every model and reused: a call takes an idle worker, else starts one; a
worker idle for :data:`IDLE_SECONDS` ends. Each call runs in a copy of the caller's
``contextvars`` context (a framework's tracing callbacks see their parent run).

Example
-------
>>> model = object()
>>> WORKERS.submit(model, lambda: "hello").future.result(timeout=5)
'hello'
"""

from __future__ import annotations

import contextvars
import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_MAX_ABANDONED", "ModelStuckError", "WorkerStats", "worker_stats"]

#: Seconds an idle worker waits for another call before it ends.
IDLE_SECONDS = 10.0
#: Calls per model left running past their deadline at most (:class:`ModelStuckError` beyond).
DEFAULT_MAX_ABANDONED = 2


class ModelStuckError(TimeoutError):
    """A call refused because its model already runs ``max_abandoned`` calls past their
    deadline (a model that neither returns nor honours the request's cancel event)."""


@dataclass(frozen=True)
class WorkerStats:
    """The pool at one moment, and what it did since the process started.

    ``threads`` workers are alive, ``idle`` of them waiting for a call; ``abandoned`` calls are
    still running past their deadline (at most ``max_abandoned`` a model); ``abandoned_total``
    calls were abandoned and ``refused_total`` refused (:class:`ModelStuckError`) so far.
    """

    threads: int
    idle: int
    abandoned: int
    abandoned_total: int
    refused_total: int


class PendingCall:
    """One model call handed to a worker: its ``future`` gets the outcome (or what the call
    raised); ``abandoned`` says whether the caller stopped waiting for it."""

    __slots__ = ("abandoned", "context", "done", "function", "future", "key")

    def __init__(self, key: int, function: Callable[[], object]) -> None:
        self.key = key
        self.function = function
        self.future: Future[object] = Future()
        self.context = contextvars.copy_context()
        self.abandoned = False
        self.done = False

    def run(self) -> None:
        if not self.future.set_running_or_notify_cancel():  # pragma: no cover - never cancelled
            return
        try:
            outcome = self.context.run(self.function)
        except BaseException as err:  # noqa: BLE001 - an interrupt, handed to the driver
            self.future.set_exception(err)
        else:
            self.future.set_result(outcome)


class _Worker(threading.Thread):
    """A daemon thread that runs the calls handed to it, one at a time, until it idles out."""

    _numbers = itertools.count(1)

    def __init__(self, pool: WorkerPool) -> None:
        super().__init__(name=f"kg-llm-worker-{next(self._numbers)}", daemon=True)
        self.pool = pool
        self.inbox: queue.SimpleQueue[PendingCall] = queue.SimpleQueue()

    def run(self) -> None:
        call: PendingCall | None = self.inbox.get()
        while call is not None:
            try:
                call.run()
            finally:
                self.pool._finished(call)
            call = self.pool._rest(self)


class WorkerPool:
    """Reusable worker threads for model calls with a deadline (the module docstring says
    more); :data:`WORKERS` is the one the drivers use."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._threads = 0
        self._abandoned: dict[int, int] = {}
        self._abandoned_total = 0
        self._refused_total = 0

    def submit(
        self,
        model: Any,
        function: Callable[[], object],
        max_abandoned: int = DEFAULT_MAX_ABANDONED,
    ) -> PendingCall:
        """Run ``function()`` (a call of ``model``) in a worker; its outcome (or what it raised)
        lands in the returned call's ``future``. Refused with :class:`ModelStuckError` when
        ``model`` already runs ``max_abandoned`` abandoned calls. A model wrapper made anew per
        question (a framework adapter's) names the model it wraps as ``model_identity``, so
        its calls count together."""
        key = id(getattr(model, "model_identity", model))
        call = PendingCall(key, function)
        with self._lock:
            stuck = self._abandoned.get(key, 0)
            if stuck >= max_abandoned:
                self._refused_total += 1
                raise ModelStuckError(
                    f"the model still runs {stuck} call{'s' if stuck != 1 else ''} past "
                    f"{'their' if stuck != 1 else 'its'} deadline (at most {max_abandoned} "
                    "are let run); no new call is started until one ends"
                )
            worker = self._idle.pop() if self._idle else None
            new = worker is None
            if worker is None:
                worker = _Worker(self)
                self._threads += 1
        worker.inbox.put(call)
        if new:
            worker.start()
        return call

    def abandon(self, call: PendingCall) -> None:
        """Stop waiting for ``call`` (its deadline passed): until it ends it counts against
        its model's ``max_abandoned``."""
        with self._lock:
            if call.done or call.abandoned:
                return
            call.abandoned = True
            self._abandoned[call.key] = self._abandoned.get(call.key, 0) + 1
            self._abandoned_total += 1

    def stats(self) -> WorkerStats:
        """The pool now (:class:`WorkerStats`)."""
        with self._lock:
            return WorkerStats(
                threads=self._threads,
                idle=len(self._idle),
                abandoned=sum(self._abandoned.values()),
                abandoned_total=self._abandoned_total,
                refused_total=self._refused_total,
            )

    def _finished(self, call: PendingCall) -> None:
        with self._lock:
            call.done = True
            if call.abandoned:
                left = self._abandoned.get(call.key, 0) - 1
                if left > 0:
                    self._abandoned[call.key] = left
                else:
                    self._abandoned.pop(call.key, None)

    def _rest(self, worker: _Worker) -> PendingCall | None:
        """Wait, idle, for the next call; ``None`` (the worker ends) after ``idle_seconds``."""
        with self._lock:
            self._idle.append(worker)
        try:
            return worker.inbox.get(timeout=self.idle_seconds)
        except queue.Empty:
            with self._lock:
                if worker in self._idle:
                    self._idle.remove(worker)
                    self._threads -= 1
                    return None
            return worker.inbox.get()  # a call was handed over as the wait ended


#: The pool the drivers use.
WORKERS = WorkerPool()


def worker_stats() -> WorkerStats:
    """The drivers' pool now: threads, idle threads, abandoned calls still running, and the
    abandoned and refused calls so far (:class:`WorkerStats`)."""
    return WORKERS.stats()
