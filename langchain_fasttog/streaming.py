"""Each step of a run as it happens: LangChain custom events, and the chains' ``stream()``.

A method's step records (:func:`kgcore.methods.kernel.listening_to_steps`: which communities
were offered, which were picked, each reasoning step's answer) reach LangChain in two ways:

* every run of a chain or a retriever sends each record as a custom event named
  :data:`STEP_EVENT` (``on_custom_event`` of a callback handler, ``astream_events``);
* ``chain.stream(question)`` and ``astream`` yield ``{"step": record}`` for each record as it
  is made, then the whole result (the dict ``invoke`` returns).

Example
-------
>>> chunks = list(stream_steps(lambda: {"answer": "42"}))
>>> chunks
[{'answer': '42'}]
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import Future
from typing import Any

from langchain_core.callbacks import AsyncCallbackManager, CallbackManager

from kgcore.methods.kernel import listening_to_steps

__all__ = ["STEP_EVENT", "AsyncStepEvents", "StepEvents", "astream_steps", "stream_steps"]

#: The name of the custom event that carries one step record.
STEP_EVENT = "kg_step"

Record = dict[str, object]


class StepEvents:
    """A step listener sending each record as a custom event of a (sync) run.

    Parameters
    ----------
    run_manager : CallbackManagerForChainRun or CallbackManagerForRetrieverRun
        The run the events belong to.
    """

    def __init__(self, run_manager: Any) -> None:
        self.children: CallbackManager = run_manager.get_child()
        self.run_id = run_manager.run_id

    def __call__(self, record: Record) -> None:
        self.children.on_custom_event(STEP_EVENT, record, run_id=self.run_id)


class AsyncStepEvents:
    """A step listener sending each record as a custom event of an async run.

    The records are made in worker threads (:func:`kgcore.llm.arun_steps`); each event is
    sent on the run's event loop, and :meth:`flush` waits until all have been handled.
    """

    def __init__(self, run_manager: Any) -> None:
        self.children: AsyncCallbackManager = run_manager.get_child()
        self.run_id = run_manager.run_id
        self.loop = asyncio.get_running_loop()
        self.sent: list[Future[Any]] = []

    def __call__(self, record: Record) -> None:
        event = self.children.on_custom_event(STEP_EVENT, record, run_id=self.run_id)
        self.sent.append(asyncio.run_coroutine_threadsafe(event, self.loop))

    async def flush(self) -> None:
        """Wait for every event sent so far."""
        await asyncio.gather(*(asyncio.wrap_future(f) for f in self.sent))


_DONE = object()


def stream_steps(run: Callable[[], Any]) -> Iterator[Any]:
    """Yield ``{"step": record}`` for each step record ``run()`` makes, then its result.

    ``run`` runs in a worker thread (with a copy of this context, so callbacks and tracing
    follow it); its error is raised here, after the steps made before it. A consumer that stops
    early does not stop the run (a thread cannot be cancelled): it ends in the background.
    """
    records: queue.Queue[tuple[object, Any]] = queue.Queue()

    def work() -> None:
        try:
            with listening_to_steps(lambda record: records.put(("step", record))):
                result = run()
        except BaseException as err:  # noqa: BLE001 - re-raised in the consumer's thread
            records.put(("error", err))
        else:
            records.put((_DONE, result))

    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(work,), daemon=True).start()
    while True:
        kind, value = records.get()
        if kind == "step":
            yield {"step": value}
        elif kind == "error":
            raise value
        else:
            yield value
            return


async def astream_steps(run: Callable[[], Awaitable[Any]]) -> AsyncIterator[Any]:
    """The async :func:`stream_steps`: ``run()`` is awaited in a task, which is cancelled when
    the consumer stops early."""
    loop = asyncio.get_running_loop()
    records: asyncio.Queue[Record] = asyncio.Queue()

    def put(record: Record) -> None:
        loop.call_soon_threadsafe(records.put_nowait, record)

    async def work() -> Any:
        with listening_to_steps(put):
            return await run()

    task = asyncio.ensure_future(work())
    try:
        while not task.done():
            getter = asyncio.ensure_future(records.get())
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield {"step": getter.result()}
            else:
                getter.cancel()
        await asyncio.sleep(0)  # records put just before the end
        while not records.empty():
            yield {"step": records.get_nowait()}
        yield task.result()
    finally:
        if not task.done():
            task.cancel()
