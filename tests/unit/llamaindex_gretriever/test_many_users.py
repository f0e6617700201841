"""Many users at once through the LlamaIndex adapters: concurrent ``aretrieve`` calls give the
sequential results and ``max_concurrency`` holds (issue 64)."""

from __future__ import annotations

import asyncio
from typing import Any

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMReply, LLMRequest
from llamaindex_gretriever import FastToGRetriever, GRetrieverRetriever
from tests.support.fake_embedder import FakeEmbedder
from tests.support.movie_graph import ASKED_FILMS as FILMS
from tests.support.movie_graph import DIRECTOR_QUESTIONS as QUESTIONS
from tests.support.movie_graph import (
    GRETRIEVER_MOVIE_TRIPLES,
    MOVIE_TRIPLES,
    scripted_director_reply,
)
from tests.support.movie_graph import SCRIPTED_DIRECTORS as DIRECTORS


class Scripted:
    """A stateless async model: pruning takes option 1, reasoning names the asked film's
    director (``Unknown`` for Cleopatra and Charade, so that their chains grow); it records
    the calls in flight."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.in_flight = 0
        self.most = 0

    def generate(self, request: LLMRequest) -> LLMReply:
        prune = request.purpose == "prune"
        return LLMReply(text=scripted_director_reply(request.prompt_text, prune))

    async def agenerate(self, request: LLMRequest) -> LLMReply:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        return self.generate(request)


def fasttog(llm: Scripted, **kwargs: Any) -> FastToGRetriever:
    store = InMemoryGraphStore.from_triples(MOVIE_TRIPLES)
    return FastToGRetriever(store, llm, embed_model=FakeEmbedder(dim=32), max_depth=2, **kwargs)


def texts(nodes_per_question: list[list[Any]]) -> list[list[str]]:
    return [[n.node.get_content() for n in nodes] for nodes in nodes_per_question]


def test_concurrent_aretrieves_give_the_sequential_results() -> None:
    sequential = [fasttog(Scripted()).retrieve(q) for q in QUESTIONS]
    shared = fasttog(Scripted(delay=0.05))

    async def all_at_once() -> list[Any]:
        return list(await asyncio.gather(*(shared.aretrieve(q) for q in QUESTIONS * 2)))

    assert texts(asyncio.run(all_at_once())) == texts(sequential) * 2
    answers = [nodes[0].node.metadata["answer"] for nodes in sequential]
    assert answers == [DIRECTORS.get(film, "Unknown") for film in FILMS]


def test_max_concurrency_bounds_the_questions_in_flight() -> None:
    model = Scripted(delay=0.05)
    limited = fasttog(model, max_concurrency=2)

    async def all_at_once() -> None:
        await asyncio.gather(*(limited.aretrieve(q) for q in QUESTIONS))

    asyncio.run(all_at_once())
    assert model.most == 2


def test_concurrent_gretriever_aretrieves_give_the_sequential_results() -> None:
    retriever = GRetrieverRetriever.from_triples(
        GRETRIEVER_MOVIE_TRIPLES, embedder=FakeEmbedder(dim=32), cache_dir=None, max_concurrency=3
    )
    questions = ["who directed Cleopatra", "who starred in Giant", "when was Shane released"]
    sequential = [retriever.retrieve(q) for q in questions]

    async def all_at_once() -> list[Any]:
        return list(await asyncio.gather(*(retriever.aretrieve(q) for q in questions * 3)))

    assert texts(asyncio.run(all_at_once())) == texts(sequential) * 3
