"""The chains' ``stream()`` / ``astream()`` yield each step as it happens, then the result;
every run sends the same steps to callbacks as ``kg_step`` custom events."""

from __future__ import annotations

import asyncio
import threading
from operator import itemgetter
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableLambda

from kgcore.exceptions import EntityNotFoundError
from kgcore.graph import InMemoryGraphStore
from kgcore.paths import PathSettings
from langchain_fasttog import FastToGChain, FastToGRetriever, ToGChain
from langchain_fasttog.streaming import STEP_EVENT

QUESTION = "which films share the director of [Cleopatra]"
# Path planning off: these runs pin the community phases' steps (test_path_planning.py holds it).
SETTINGS: dict[str, Any] = {
    "width": 1,
    "max_community_size": 2,
    "grounded_answers": False,
    "paths": PathSettings(max_hops=0),
    "first_choice": "llm",  # the scripted choices are the LLM's
    "chain_choice": "llm",
}


def _chain(store: InMemoryGraphStore, llm: Any) -> FastToGChain:
    return FastToGChain(graph=store, llm=llm, **SETTINGS)


class StepEvents(BaseCallbackHandler):
    def __init__(self) -> None:
        self.records: list[Any] = []

    def on_custom_event(self, name: str, data: Any, *, run_id: UUID, **kwargs: Any) -> None:
        if name == STEP_EVENT:
            self.records.append(data)


class AsyncStepEvents(AsyncCallbackHandler):
    def __init__(self) -> None:
        self.records: list[Any] = []

    async def on_custom_event(self, name: str, data: Any, *, run_id: UUID, **kwargs: Any) -> None:
        if name == STEP_EVENT:
            self.records.append(data)


def test_stream_yields_steps_before_the_answer(movie_store: InMemoryGraphStore) -> None:
    chunks = list(
        _chain(movie_store, FakeListChatModel(responses=["{1}", "{All About Eve}"])).stream(
            QUESTION
        )
    )
    *steps, result = chunks
    assert result["answer"] == "All About Eve"
    assert [s["step"]["purpose"] for s in steps] == ["prune", "reason"]
    assert [s["step"] for s in steps] == result["extra"]["steps"]
    assert steps[0]["step"]["picked"] == [0] and steps[1]["step"]["answer"] == "All About Eve"


def test_a_step_is_yielded_while_the_model_is_still_to_answer(
    movie_store: InMemoryGraphStore,
) -> None:
    """The reasoning call waits until the consumer has the pruning step: a stream that
    yielded only at the end would leave it waiting (and the test failing)."""
    first_step_seen = threading.Event()
    waited: list[bool] = []

    def model(messages: list[BaseMessage]) -> AIMessage:
        if not waited:
            waited.append(True)
            return AIMessage(content="{1}")
        waited.append(first_step_seen.wait(timeout=10))
        return AIMessage(content="{All About Eve}")

    for chunk in _chain(movie_store, RunnableLambda(model)).stream(QUESTION):
        if "step" in chunk:
            first_step_seen.set()
    assert waited == [True, True]
    assert chunk["answer"] == "All About Eve"


def test_astream_yields_steps_then_the_result(movie_store: InMemoryGraphStore) -> None:
    chain = _chain(movie_store, FakeListChatModel(responses=["{1}", "{All About Eve}"]))

    async def collect() -> list[dict[str, Any]]:
        return [chunk async for chunk in chain.astream({"question": QUESTION})]

    *steps, result = asyncio.run(collect())
    assert [s["step"]["purpose"] for s in steps] == ["prune", "reason"]
    assert result["answer"] == "All About Eve"


def test_a_streamed_chain_composes(movie_store: InMemoryGraphStore) -> None:
    chain = _chain(movie_store, FakeListChatModel(responses=["{1}", "{All About Eve}"]))
    assert list((chain | itemgetter("answer")).stream(QUESTION))[-1] == "All About Eve"


def test_stream_raises_the_runs_error(movie_store: InMemoryGraphStore) -> None:
    chain = _chain(movie_store, FakeListChatModel(responses=["{1}"]))
    with pytest.raises(EntityNotFoundError, match="Cleopatra"):
        list(chain.stream("who directed [Cleopatre]"))


@pytest.mark.parametrize("path", ["sync", "async"])
def test_callbacks_get_each_step_as_a_custom_event(
    movie_store: InMemoryGraphStore, path: str
) -> None:
    chain = _chain(movie_store, FakeListChatModel(responses=["{1}", "{All About Eve}"]))
    if path == "sync":
        handler: Any = StepEvents()
        result = chain.invoke(QUESTION, config={"callbacks": [handler]})
    else:
        handler = AsyncStepEvents()
        result = asyncio.run(chain.ainvoke(QUESTION, config={"callbacks": [handler]}))
    assert handler.records == result["extra"]["steps"]


def test_retrievers_and_other_chains_send_step_events(movie_store: InMemoryGraphStore) -> None:
    handler = StepEvents()
    FastToGRetriever(
        graph=movie_store, llm=FakeListChatModel(responses=["{1}", "{All About Eve}"]), **SETTINGS
    ).invoke(QUESTION, config={"callbacks": [handler]})
    assert [r["purpose"] for r in handler.records] == ["prune", "reason"]
    tog = ToGChain(
        graph=movie_store,
        llm=FakeListChatModel(responses=["{A: 1.0}", "{A: 1.0}", "Yes {Joseph L. Mankiewicz}"]),
    )
    *steps, result = list(tog.stream("who directed [Cleopatra]"))
    assert steps and [s["step"] for s in steps] == result["extra"]["steps"]
