"""Errors a newcomer can act on through LlamaIndex (issue 66): a misspelt setting names the
closest one, a missing ``llm`` says what to pass."""

from __future__ import annotations

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from llamaindex_gretriever import CGPERetriever, FastToGRetriever, ToGRetriever

STORE = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])


def test_a_misspelt_setting_names_the_closest_one() -> None:
    with pytest.raises(ConfigurationError, match=r"widht \(did you mean 'width'\?\)"):
        FastToGRetriever(STORE, ScriptedLLM(["{Unknown}"]), widht=3)


@pytest.mark.parametrize("retriever", [FastToGRetriever, ToGRetriever, CGPERetriever])
def test_a_retriever_without_llm_says_what_to_pass(retriever: type) -> None:
    with pytest.raises(ConfigurationError, match=r"needs llm=: a LlamaIndex LLM"):
        retriever(STORE)
