"""A Bolt store under ``asyncio`` (issue 64): awaited reads through the driver's AsyncDriver,
concurrent questions that give the sequential results, a stalled server that never stalls the
event loop, and a cancelled question that leaves no session or thread behind."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest

from kgcore.exceptions import GraphStoreError
from kgcore.graph.neo4j_loader import write_triples_to_neo4j
from kgcore.graph.neo4j_store import Neo4jGraphStore
from kgcore.llm import LLMReply, LLMRequest
from kgcore.methods.fasttog import FastToG, FastToGConfig
from tests.support.fake_embedder import FakeEmbedder
from tests.support.movie_graph import MOVIE_TRIPLES
from tests.support.neo4j_testserver import BoltServer
from tests.support.tcp_proxy import StallingProxy

MakeStore = Callable[..., Neo4jGraphStore]
FILMS = ("Cleopatra", "Giant", "Shane", "Charade", "All About Eve", "Guys and Dolls")
DIRECTORS = {"Giant": "George Stevens", "Shane": "George Stevens"}


class Scripted:
    """Pruning takes option 1; reasoning names the director of Giant and Shane, else says
    ``Unknown``; async calls wait ``delay`` seconds."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    def generate(self, request: LLMRequest) -> LLMReply:
        if request.purpose == "prune":
            return LLMReply(text="{1}")
        asked = request.prompt_text.split("Question:")[-1]
        film = next((f for f in FILMS if f"[{f}]" in asked), "")
        return LLMReply(text="{" + DIRECTORS.get(film, "Unknown") + "}")

    async def agenerate(self, request: LLMRequest) -> LLMReply:
        await asyncio.sleep(self.delay)
        return self.generate(request)


def engine(store: Neo4jGraphStore) -> FastToG:
    config = FastToGConfig(max_depth=2, max_community_size=2)
    return FastToG(store, config, embedder=FakeEmbedder(dim=32))


def summary(result: Any) -> tuple[Any, ...]:
    return result.answer, result.llm_calls, result.context


@pytest.fixture
def loaded(make_store: MakeStore) -> Neo4jGraphStore:
    store = make_store()
    write_triples_to_neo4j(store, MOVIE_TRIPLES, progress=False)
    return store


async def _worst_gap(task: asyncio.Future[Any]) -> float:
    worst, last = 0.0, time.perf_counter()
    while not task.done():
        await asyncio.sleep(0.005)
        now = time.perf_counter()
        worst, last = max(worst, now - last - 0.005), now
    return worst


def test_concurrent_questions_read_through_the_async_driver_and_match_sequential_runs(
    loaded: Neo4jGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = [f"who directed [{film}]" for film in FILMS]
    method = engine(loaded)
    sequential = [summary(method.run(q, Scripted())) for q in questions]
    assert [s[0] for s in sequential] == [DIRECTORS.get(f, "Unknown") for f in FILMS]

    def no_sync_read(*args: Any) -> Any:
        raise AssertionError("an awaited run read through the synchronous driver")

    monkeypatch.setattr(loaded, "_read_member", no_sync_read)
    before = loaded.round_trips

    async def all_at_once() -> tuple[list[Any], float]:
        task = asyncio.ensure_future(
            asyncio.gather(*(method.arun(q, Scripted(delay=0.05)) for q in questions * 2))
        )
        gap = await _worst_gap(task)
        results = await task
        await loaded.aclose()
        return [summary(r) for r in results], gap

    concurrent, gap = asyncio.run(all_at_once())
    assert concurrent == sequential * 2
    assert loaded.round_trips > before  # the awaited reads were sent, and counted
    assert gap < 0.25, f"the event loop stalled {gap:.2f} s"


def test_a_stalled_server_ends_an_awaited_read_at_its_deadline_without_stalling_the_loop(
    bolt_server: BoltServer, loaded: Neo4jGraphStore
) -> None:
    target = urlsplit(bolt_server.uri)
    proxy = StallingProxy(target.hostname or "127.0.0.1", target.port or 7687)
    host = urlsplit(bolt_server.uri)
    store = Neo4jGraphStore(
        f"{host.scheme}://127.0.0.1:{proxy.port}",
        bolt_server.username,
        bolt_server.password,
        bolt_server.database,
        mapping=loaded.mapping,
        query_timeout=1.0,
    )
    method = engine(store)

    async def stalled() -> tuple[BaseException | None, float, float]:
        assert (await method.arun("who directed [Giant]", Scripted())).answer == "George Stevens"
        proxy.stall()
        started = time.perf_counter()
        task = asyncio.ensure_future(method.arun("who directed [Shane]", Scripted()))
        gap = await _worst_gap(task)
        error = task.exception()
        return error, time.perf_counter() - started, gap

    try:
        error, took, gap = asyncio.run(stalled())
        assert isinstance(error, GraphStoreError) and "no answer within 1 s" in str(error)
        assert took < 2.5 and gap < 0.1
    finally:
        proxy.kill()
        store.close()


def test_a_cancelled_question_leaves_no_session_or_thread(loaded: Neo4jGraphStore) -> None:
    method = engine(loaded)
    opened: list[int] = []
    closed: list[int] = []

    async def cancelled() -> None:
        driver = loaded.async_reads._driver()
        session = driver.session

        def counting(**config: Any) -> Any:
            made = session(**config)
            opened.append(id(made))
            close = made.close

            async def closing() -> None:
                closed.append(id(made))
                await close()

            made.close = closing
            return made

        driver.session = counting
        await method.arun("who directed [Shane]", Scripted())  # the pools' threads start
        threads = threading.active_count()
        task = asyncio.ensure_future(method.arun("who directed [Cleopatra]", Scripted(delay=5)))
        await asyncio.sleep(0.5)  # in its first model call, after its first reads
        started = time.perf_counter()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert time.perf_counter() - started < 0.5
        await asyncio.sleep(0.1)
        assert threading.active_count() <= threads
        await loaded.aclose()

    asyncio.run(cancelled())
    assert opened and sorted(opened) == sorted(closed)
