"""kgcore.concurrency: graph work awaited on the event loop, never blocking it."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time

import pytest

from kgcore import concurrency
from kgcore.concurrency import InFlightLimit, await_io, in_awaited_run, run_graph_work
from kgcore.exceptions import InvalidSettingError

REQUEST = contextvars.ContextVar("request", default="none")


async def _max_gap(work: asyncio.Future[object] | asyncio.Task[object]) -> float:
    """The event loop's worst gap (seconds) while ``work`` runs, by a 5 ms ticker."""
    worst = 0.0
    last = time.perf_counter()
    while not work.done():
        await asyncio.sleep(0.005)
        now = time.perf_counter()
        worst = max(worst, now - last - 0.005)
        last = now
    return worst


def test_graph_work_runs_in_the_graph_executor_and_its_io_on_the_loop() -> None:
    where: list[str] = []

    async def read() -> int:
        where.append(threading.current_thread().name)
        await asyncio.sleep(0.2)
        return 2

    def work() -> int:
        where.append(threading.current_thread().name)
        assert in_awaited_run()
        time.sleep(0.2)  # stands for computing: the loop goes on meanwhile
        return await_io(read()) * 10

    async def main() -> tuple[int, float]:
        task = asyncio.ensure_future(run_graph_work(work))
        gap = await _max_gap(task)
        return await task, gap

    value, gap = asyncio.run(main())
    assert value == 20 and gap < 0.1
    assert where[0].startswith("kg-graph") and where[1] == threading.current_thread().name


def test_outside_a_run_await_io_runs_the_coroutine_to_its_end() -> None:
    assert not in_awaited_run()
    assert await_io(asyncio.sleep(0, result="done")) == "done"


def test_an_error_of_the_awaited_coroutine_is_raised_where_it_was_awaited() -> None:
    async def failing() -> None:
        raise KeyError("gone")

    def work() -> str:
        try:
            await_io(failing())
        except KeyError:
            return "caught"
        return "missed"

    assert asyncio.run(run_graph_work(work)) == "caught"


def test_a_cancelled_run_returns_at_once_and_stops_at_the_read_it_waits_in() -> None:
    reached: list[str] = []
    read_cancelled = threading.Event()

    async def slow_read() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            read_cancelled.set()
            raise

    def work() -> None:
        try:
            await_io(slow_read())
            reached.append("after the read")
        finally:
            reached.append("cleaned up")

    async def main() -> float:
        task = asyncio.ensure_future(run_graph_work(work))
        await asyncio.sleep(0.1)
        started = time.perf_counter()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        took = time.perf_counter() - started
        for _ in range(40):  # the worker notices within its poll
            if reached:
                break
            await asyncio.sleep(0.025)
        return took

    assert asyncio.run(main()) < 0.1
    assert reached == ["cleaned up"] and read_cancelled.is_set()


def test_the_callers_context_variables_are_seen_in_the_graph_work() -> None:
    async def main() -> str:
        REQUEST.set("question-7")
        return await run_graph_work(REQUEST.get)

    assert asyncio.run(main()) == "question-7"


def test_thread_settings_are_checked_and_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in (0, 257, 1.5, True, "x"):
        with pytest.raises(InvalidSettingError, match="thread counts"):
            concurrency.set_graph_workers(bad)  # type: ignore[arg-type]
    before = concurrency.graph_workers()
    try:
        concurrency.set_graph_workers(3)
        assert concurrency.graph_workers() == 3
    finally:
        concurrency.set_graph_workers(before)
    monkeypatch.setattr(concurrency, "_torch_threads", None)
    monkeypatch.setenv("KG_TORCH_THREADS", "1")
    assert concurrency.torch_threads() == 1
    monkeypatch.setattr(concurrency, "_torch_threads", None)
    monkeypatch.setenv("KG_TORCH_THREADS", "0")
    with pytest.raises(InvalidSettingError):
        concurrency.torch_threads()
    monkeypatch.setattr(concurrency, "_torch_threads", None)
    monkeypatch.delenv("KG_TORCH_THREADS")
    assert 1 <= concurrency.torch_threads() <= 4


def test_at_most_graph_compute_runs_compute_at_once_and_waiting_frees_a_turn() -> None:
    before = concurrency.graph_compute()
    computing = 0
    most = 0
    count = threading.Lock()

    def compute(waits: bool) -> None:
        nonlocal computing, most
        with count:
            computing += 1
            most = max(most, computing)
        time.sleep(0.02)
        with count:
            computing -= 1
        if waits:  # a server read: the turn goes to another question meanwhile
            await_io(asyncio.sleep(0.2))

    async def questions(waits: bool) -> float:
        started = time.perf_counter()
        await asyncio.gather(*(run_graph_work(compute, waits) for _ in range(6)))
        return time.perf_counter() - started

    try:
        concurrency.set_graph_compute(1)
        assert concurrency.graph_compute() == 1
        asyncio.run(questions(False))
        assert most == 1
        # Six 0.2 s waits overlap: with the turn held while waiting they would take 1.2 s.
        assert asyncio.run(questions(True)) < 0.8
        assert most == 1
        concurrency.set_graph_compute(3)
        asyncio.run(questions(False))
        assert most == 3
    finally:
        concurrency.set_graph_compute(before)
    with pytest.raises(InvalidSettingError, match="thread counts"):
        concurrency.set_graph_compute(0)


def test_the_in_flight_limit_holds_for_threads_and_for_tasks() -> None:
    limit = InFlightLimit(2)
    seen: list[int] = []
    lock = threading.Lock()

    def ask() -> None:
        with limit.hold():
            with lock:
                seen.append(limit.in_flight)
            time.sleep(0.02)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and max(seen) <= 2

    async def aask() -> int:
        async with limit.ahold():
            await asyncio.sleep(0.01)
            return limit.in_flight

    async def many() -> list[int]:
        return list(await asyncio.gather(*(aask() for _ in range(8))))

    assert max(asyncio.run(many())) == 2
    assert limit.in_flight == 0
    with pytest.raises(InvalidSettingError, match="max_concurrency"):
        InFlightLimit(0)


def test_a_large_graph_and_its_filled_caches_leave_the_collectors_sight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    from kgcore.graph import InMemoryGraphStore, memory

    triples = [(f"film {i}", "directed_by", f"director {i % 50}") for i in range(200)]
    monkeypatch.setattr(memory, "FREEZE_STEP", 100)
    try:
        gc.unfreeze()
        monkeypatch.setenv("KG_GC_FREEZE", "0")
        InMemoryGraphStore.from_triples(triples)
        assert gc.get_freeze_count() == 0
        monkeypatch.delenv("KG_GC_FREEZE")
        store = InMemoryGraphStore.from_triples(triples)
        frozen = gc.get_freeze_count()
        assert frozen > 0
        for i in range(50):  # 50 hubs' neighbour lists: 200 cached triples
            store.neighbors(f"director {i}")
        assert gc.get_freeze_count() > frozen
        small = InMemoryGraphStore.from_triples(triples[:99])
        assert small.num_triples() == 99
    finally:
        gc.unfreeze()
