"""The cost cap in the LangChain adapters (issue 39): ``max_llm_calls`` / ``max_prompt_tokens``
on every chain and retriever stop each question after that many model calls."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from kgcore.exceptions import InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from langchain_fasttog import (
    BaselineChain,
    CGPEChain,
    CGPERetriever,
    FastToGChain,
    FastToGRetriever,
    ToGChain,
)
from tests.support.movie_graph import MOVIE_TRIPLES

QUESTION = "which films share the director of [Cleopatra]"
FASTTOG = {"first_choice": "llm", "chain_choice": "llm"}


class Counting(FakeListChatModel):
    """A chat model giving the same reply to every call, counting them."""

    calls: int = 0

    def _call(self, *args: Any, **kwargs: Any) -> str:
        self.calls += 1
        return self.responses[0]


def store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(MOVIE_TRIPLES)


CHAINS = {
    "fasttog": lambda llm, **cap: FastToGChain(graph=store(), llm=llm, **FASTTOG, **cap),
    "tog": lambda llm, **cap: ToGChain(graph=store(), llm=llm, **cap),
    "cgpe": lambda llm, **cap: CGPEChain(graph=store(), llm=llm, **cap),
    "cot-sc": lambda llm, **cap: BaselineChain(llm=llm, kind="cot-sc", **cap),
}
#: A reply that keeps each method going (a usable choice, never an answer).
REPLY = {"fasttog": "{1}", "tog": "{A: 1.0}", "cgpe": '["Cleopatra", "director", "films"]'}


@pytest.mark.parametrize("name", list(CHAINS))
def test_every_chain_stops_after_max_llm_calls(name: str) -> None:
    free = Counting(responses=[REPLY.get(name, "So {Paris}")])
    CHAINS[name](free).invoke(QUESTION)
    assert free.calls > 2
    llm = Counting(responses=[REPLY.get(name, "So {Paris}")])
    result = CHAINS[name](llm, max_llm_calls=2).invoke(QUESTION)
    assert llm.calls == result["llm_calls"] == 2
    assert result["extra"]["budget_exhausted"] == "max_llm_calls"


@pytest.mark.parametrize("name", list(CHAINS))
def test_every_chain_stops_on_the_async_path(name: str) -> None:
    llm = Counting(responses=[REPLY.get(name, "So {Paris}")])
    result = asyncio.run(CHAINS[name](llm, max_prompt_tokens=1).ainvoke(QUESTION))
    assert llm.calls == result["llm_calls"] == 0
    assert (result["answer"], result["extra"]["budget_exhausted"]) == (
        "Unknown",
        "max_prompt_tokens",
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda llm, **cap: FastToGRetriever(graph=store(), llm=llm, **FASTTOG, **cap),
        lambda llm, **cap: CGPERetriever(graph=store(), llm=llm, **cap),
    ],
    ids=["fasttog", "cgpe"],
)
def test_retrievers_stop_after_max_llm_calls(make: Any) -> None:
    llm = Counting(responses=["{1}"])
    make(llm, max_llm_calls=1).invoke(QUESTION)
    assert llm.calls == 1
    llm = Counting(responses=["{1}"])
    asyncio.run(make(llm, max_llm_calls=1).ainvoke(QUESTION))
    assert llm.calls == 1


@pytest.mark.parametrize(
    "bad", [{"max_llm_calls": 0}, {"max_llm_calls": 1.5}, {"max_prompt_tokens": -1}], ids=repr
)
@pytest.mark.parametrize("name", list(CHAINS))
def test_a_bad_cap_is_refused_when_the_chain_is_made(name: str, bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidSettingError, match="Budget setting"):
        CHAINS[name](Counting(responses=["x"]), **bad)
