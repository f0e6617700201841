"""The async drivers keep the event loop free: concurrent runs overlap their graph waits."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMReply, LLMRequest, ScriptedLLM, arun_steps
from kgcore.llm.protocol import Steps
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.types import Triple

DELAY = 0.3
TRIPLES = [
    ("Heat", "directed_by", "Michael Mann"),
    ("Heat", "starred_actors", "Al Pacino"),
    ("Thief", "directed_by", "Michael Mann"),
]


class SlowStore(InMemoryGraphStore):
    """A graph whose every ``neighbors`` read blocks for :data:`DELAY` seconds (a slow server)."""

    def __init__(self) -> None:
        super().__init__()
        self.add_triples(TRIPLES)
        self.calls = 0
        self._count_lock = threading.Lock()

    def neighbors(self, node: str, limit: int | None = None) -> list[Triple]:
        with self._count_lock:
            self.calls += 1
        time.sleep(DELAY)  # blocking, as a driver's read is
        return super().neighbors(node, limit)


async def _twice(make: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await asyncio.gather(make(), make())
    return time.perf_counter() - started


def test_arun_steps_runs_the_generators_graph_reads_off_the_event_loop() -> None:
    store = SlowStore()

    def steps() -> Steps[int]:
        found = len(store.neighbors("Heat"))
        reply = yield LLMRequest.from_prompt("q", purpose="io")
        return found + len(store.neighbors(reply.text))

    class Echo:
        async def agenerate(self, request: LLMRequest) -> LLMReply:
            return LLMReply(text="Michael Mann")

    async def one() -> int:
        return await arun_steps(steps(), Echo())

    elapsed = asyncio.run(_twice(one))
    serial = store.calls * DELAY
    assert store.calls == 4
    assert elapsed < 0.75 * serial, f"{elapsed:.2f}s for {serial:.2f}s of graph waits"
    assert asyncio.run(one()) == 4  # 2 neighbours of Heat, 2 of Michael Mann


def test_two_concurrent_fasttog_runs_overlap_their_graph_waits() -> None:
    store = SlowStore()
    engine = FastToG(
        store, FastToGConfig(width=1, max_depth=1, max_community_size=2, grounded_answers=False)
    )

    def script() -> ScriptedLLM:
        return ScriptedLLM.by_purpose(
            repeat_last=True, replies=dict(prune=["{1}"], reason=["{Michael Mann}"], cot=["{x}"])
        )

    async def one() -> object:
        result = await engine.arun("who directed [Heat]", script())
        assert result.answer == "Michael Mann"
        return result

    elapsed = asyncio.run(_twice(one))
    serial = store.calls * DELAY
    assert store.calls >= 2
    assert elapsed < 0.75 * serial, f"{elapsed:.2f}s for {serial:.2f}s of graph waits"


def test_a_generator_error_reaches_the_caller() -> None:
    def steps() -> Steps[str]:
        yield LLMRequest.from_prompt("q", purpose="io")
        raise KeyError("boom")

    try:
        asyncio.run(arun_steps(steps(), ScriptedLLM(["x"])))
    except KeyError as err:
        assert "boom" in str(err)
    else:  # pragma: no cover - the assertion is the failure
        raise AssertionError("the generator's KeyError was lost")
