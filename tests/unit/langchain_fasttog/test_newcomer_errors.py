"""Errors a newcomer can act on (issue 66): a misspelt setting names the closest one, a
missing ``llm`` says what to pass, and a local model without its extra names the extra."""

from __future__ import annotations

import importlib.util

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kgcore.graph import InMemoryGraphStore
from langchain_fasttog import FastToGRetriever, GRetrieverRetriever, ToGRetriever
from langchain_fasttog.models import resolve_chat_model

STORE = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
LLM = FakeListChatModel(responses=["{Unknown}"])


def test_a_misspelt_setting_names_the_closest_one() -> None:
    with pytest.raises(ConfigurationError, match=r"no setting widht \(did you mean 'width'\?\)"):
        FastToGRetriever(graph=STORE, llm=LLM, widht=3)
    with pytest.raises(ConfigurationError, match=r"did you mean 'max_llm_calls'\?"):
        ToGRetriever(graph=STORE, llm=LLM, max_llm_call=3)
    with pytest.raises(ConfigurationError, match=r"no setting colour \(it takes"):
        GRetrieverRetriever(graph=STORE, colour="red")


def test_a_retriever_without_llm_says_what_to_pass() -> None:
    with pytest.raises(ConfigurationError, match=r"FastToGRetriever needs llm=: a LangChain chat"):
        FastToGRetriever(graph=STORE)
    with pytest.raises(ConfigurationError, match=r"ToGRetriever needs graph=: a graph store"):
        ToGRetriever(llm=LLM)


def test_the_local_model_without_its_extra_names_the_local_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "llama_cpp" else real(name)
    )
    with pytest.raises(MissingDependencyError, match=r"kg-retrievers\[local\]"):
        resolve_chat_model("local")
