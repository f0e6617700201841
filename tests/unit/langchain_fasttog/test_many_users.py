"""Many users at once through the LangChain adapters: concurrent questions give the sequential
results, ``max_concurrency`` holds, and a model that never returns costs a bounded number of
threads however many calls it gets (issue 64)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from kgcore.exceptions import KGRetrieverError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm.protocol import RetryPolicy, worker_stats
from langchain_fasttog import FastToGRetriever
from tests.support.fake_embedder import FakeEmbedder
from tests.support.movie_graph import ASKED_FILMS as FILMS
from tests.support.movie_graph import DIRECTOR_QUESTIONS as QUESTIONS
from tests.support.movie_graph import SCRIPTED_DIRECTORS as DIRECTORS
from tests.support.movie_graph import scripted_director_reply


def reply_for(messages: list[BaseMessage]) -> str:
    """The script's reply to a chat (:func:`scripted_director_reply`)."""
    text = str(messages[-1].content)
    prune = "Reply with its number" in text or "Reply with their numbers" in text
    return scripted_director_reply(text, prune)


class Scripted(BaseChatModel):
    """Replies by :func:`reply_for`; async calls wait ``delay`` seconds (a hosted model) and
    record how many were in flight at once."""

    delay: float = 0.0
    in_flight: int = 0
    most: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, **kw: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply_for(messages)))])

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, **kw: Any
    ) -> ChatResult:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        return self._generate(messages)


class NeverReturns(BaseChatModel):
    """A hosted model that stopped answering: every call blocks until the test ends."""

    release: Any = None

    @property
    def _llm_type(self) -> str:
        return "stuck"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, **kw: Any) -> ChatResult:
        self.release.wait(60)
        return ChatResult(generations=[ChatGeneration(message=AIMessage("{Unknown}"))])


def retriever(store: InMemoryGraphStore, llm: BaseChatModel, **kwargs: Any) -> FastToGRetriever:
    return FastToGRetriever(
        graph=store, llm=llm, embeddings=FakeEmbedder(dim=32), max_depth=2, **kwargs
    )


def answers(docs_per_question: list[list[Any]]) -> list[Any]:
    return [[d.metadata.get("answer") for d in docs] for docs in docs_per_question]


def test_concurrent_questions_give_the_sequential_results(movie_store: InMemoryGraphStore) -> None:
    sequential = [retriever(movie_store, Scripted()).invoke(q) for q in QUESTIONS]
    shared = retriever(movie_store, Scripted(delay=0.05))

    async def all_at_once() -> list[Any]:
        return list(await asyncio.gather(*(shared.ainvoke(q) for q in QUESTIONS * 2)))

    concurrent = asyncio.run(all_at_once())
    assert [docs[0].metadata["answer"] for docs in sequential] == [
        DIRECTORS.get(film, "Unknown") for film in FILMS
    ]
    assert answers(concurrent) == answers(sequential) * 2
    assert [[d.page_content for d in docs] for docs in concurrent] == [
        [d.page_content for d in docs] for docs in sequential
    ] * 2
    assert answers(shared.batch(QUESTIONS, config={"max_concurrency": 3})) == answers(sequential)


def test_max_concurrency_bounds_the_questions_in_flight(movie_store: InMemoryGraphStore) -> None:
    model = Scripted(delay=0.05)
    limited = retriever(movie_store, model, max_concurrency=2)

    async def all_at_once() -> None:
        await asyncio.gather(*(limited.ainvoke(q) for q in QUESTIONS))

    asyncio.run(all_at_once())
    assert model.most == 2  # one model call per question in flight at a time


def test_a_model_that_never_returns_holds_at_most_its_cap_of_threads(
    movie_store: InMemoryGraphStore,
) -> None:
    release = threading.Event()
    stuck = retriever(
        movie_store,
        NeverReturns(release=release),
        llm_timeout=0.05,
        retry=RetryPolicy(attempts=1, max_abandoned=2),
    )
    before = threading.active_count()
    abandoned = worker_stats().abandoned
    try:
        failures = 0
        for _ in range(100):
            try:
                stuck.invoke(QUESTIONS[1])
            except KGRetrieverError:
                failures += 1
        grew = threading.active_count() - before
        assert failures == 100
        assert worker_stats().abandoned - abandoned <= 2
        assert grew <= 2, f"{grew} more threads after 100 calls"
    finally:
        release.set()


def test_the_run_settings_are_checked(movie_store: InMemoryGraphStore) -> None:
    with pytest.raises(KGRetrieverError, match="timeout"):
        retriever(movie_store, Scripted(), llm_timeout=0)
    with pytest.raises(KGRetrieverError, match="max_concurrency"):
        retriever(movie_store, Scripted(), max_concurrency=0)
    assert retriever(movie_store, Scripted(), llm_timeout=7).retry_policy().timeout == 7
