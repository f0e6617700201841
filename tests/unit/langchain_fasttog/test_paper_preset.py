"""``preset="paper"`` on the LangChain FastToG retriever and chain (issue 38): the paper's
config, its temperatures and token caps on every call, checked when built."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from pydantic import ValidationError

from kgcore.exceptions import ConfigurationError
from kgcore.graph import InMemoryGraphStore
from langchain_fasttog import FastToGChain, FastToGConfig, FastToGRetriever

QUESTION = "which films share the director of [Cleopatra]"


class Recording(FakeListChatModel):
    """Records the purpose-free sampling settings each call runs with, and its messages."""

    seen: list[tuple[Any, Any, int]] = []

    def _call(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[override]
        self.seen.append((kwargs.get("temperature"), kwargs.get("max_tokens"), len(messages)))
        return super()._call(messages, stop, run_manager, **kwargs)


def test_the_retriever_and_chain_take_the_paper_preset(movie_store: InMemoryGraphStore) -> None:
    llm = FakeListChatModel(responses=["{x}"])
    retriever = FastToGRetriever(graph=movie_store, llm=llm, preset="paper")
    assert retriever.config == FastToGConfig.paper()
    chain = FastToGChain(graph=movie_store, llm=llm, preset="paper", width=2)
    assert chain.config == FastToGConfig.paper(width=2)  # fields given directly override it
    same = FastToGRetriever(graph=movie_store, llm=llm, config=FastToGConfig.paper())
    assert same.config == retriever.config
    assert FastToGRetriever(graph=movie_store, llm=llm).config == FastToGConfig()


def test_a_wrong_preset_or_a_preset_with_a_config_is_refused(
    movie_store: InMemoryGraphStore,
) -> None:
    llm = FakeListChatModel(responses=["{x}"])
    with pytest.raises((ConfigurationError, ValidationError), match="presets are metaqa, paper"):
        FastToGRetriever(graph=movie_store, llm=llm, preset="papr")
    with pytest.raises((ConfigurationError, ValidationError), match="not both"):
        FastToGChain(graph=movie_store, llm=llm, preset="paper", config=FastToGConfig())


def test_the_paper_preset_sends_its_temperatures_and_caps(
    movie_store: InMemoryGraphStore,
) -> None:
    model = Recording(responses=["{A}", "To sum up, the answer is {All About Eve}."], seen=[])
    chain = FastToGChain(
        graph=movie_store, llm=model, preset="paper", max_community_size=2, width=1
    )
    result = chain.invoke(QUESTION)
    assert result["answer"] == "All About Eve"
    assert model.seen == [(0.4, 4096, 2), (0.1, 4096, 2)]  # prune, then reason
    plain = Recording(responses=["{1}", "{All About Eve}"], seen=[])
    FastToGChain(graph=movie_store, llm=plain, max_community_size=2, width=1).invoke(QUESTION)
    assert plain.seen and all(t is m is None for t, m, _ in plain.seen)  # the model's own
