"""Typed ``config`` fields of the ToG and CGPE LangChain adapters, and their ``graph`` check."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from pydantic import ValidationError

from kgcore.exceptions import ConfigurationError
from kgcore.graph import InMemoryGraphStore
from kgcore.methods.cgpe import CGPEConfig
from kgcore.methods.tog import ToGConfig
from langchain_fasttog import CGPEChain, CGPERetriever, ToGChain

STORE = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
LLM = FakeListChatModel(responses=["{J. Mankiewicz}"])


def test_tog_chain_takes_a_typed_config_and_flat_overrides() -> None:
    chain = ToGChain(graph=STORE, llm=LLM, config=ToGConfig(width=2, seed=3), max_depth=1)
    assert chain.config == ToGConfig(width=2, seed=3, max_depth=1)
    assert chain.engine().config == chain.config
    assert ToGChain(graph=STORE, llm=LLM).config == ToGConfig()


def test_cgpe_adapters_take_a_typed_config() -> None:
    retriever = CGPERetriever(graph=STORE, llm=LLM, max_branches=2)
    assert retriever.engine().config == CGPEConfig(max_branches=2)
    chain = CGPEChain(graph=STORE, llm=LLM, config=CGPEConfig(answer_prompt="{question}{paths}"))
    assert chain.engine().config.answer_prompt == "{question}{paths}"


@pytest.mark.parametrize("cls", [ToGChain, CGPERetriever, CGPEChain])
def test_the_untyped_options_dict_is_refused_like_any_unknown_keyword(cls: type) -> None:
    with pytest.raises(ConfigurationError, match="has no setting options"):
        cls(graph=STORE, llm=LLM, options={"max_depth": 2})


@pytest.mark.parametrize(
    "kwargs",
    [
        {"config": {"width": 2}},  # not a ToGConfig
        {"width": 0},  # out of range
        {"reason_prompt": "{facts}"},  # a template that cannot be filled
    ],
)
def test_bad_tog_settings_are_refused_at_construction(kwargs: dict[str, object]) -> None:
    with pytest.raises((ConfigurationError, ValidationError)):
        ToGChain(graph=STORE, llm=LLM, **kwargs)


def test_graph_must_be_a_graph_store() -> None:
    with pytest.raises((ConfigurationError, ValidationError, TypeError)):
        ToGChain(graph="bolt://localhost", llm=LLM)
    with pytest.raises((ConfigurationError, ValidationError, TypeError)):
        CGPEChain(graph=42, llm=LLM)
