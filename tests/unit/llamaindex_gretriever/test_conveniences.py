"""Every LlamaIndex retriever offers the same conveniences (issue 66): ``as_query_engine`` and
``as_tool``; a misspelt name beside a found one is refused with the closest names."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.llms import MockLLM

from kgcore.graph import InMemoryGraphStore
from kgcore.gretriever.retriever import RegionSettings
from llamaindex_gretriever import (
    CGPERetriever,
    FastToGRetriever,
    GRetrieverRetriever,
    ToGRetriever,
    gretriever_tool,
)
from tests.support.fake_embedder import FakeEmbedder
from tests.support.movie_graph import GRETRIEVER_MOVIE_TRIPLES

STORE = InMemoryGraphStore.from_triples(GRETRIEVER_MOVIE_TRIPLES)


def every_retriever() -> list[Any]:
    llm = MockLLM()
    gretriever = GRetrieverRetriever.from_triples(
        GRETRIEVER_MOVIE_TRIPLES, embedder=FakeEmbedder(dim=16), cache_dir=None
    )
    embed = {"embed_model": FakeEmbedder(dim=16)}
    return [
        gretriever,
        FastToGRetriever(STORE, llm, **embed),
        ToGRetriever(STORE, llm),
        CGPERetriever(STORE, llm),
    ]


@pytest.mark.parametrize("index", range(4))
def test_every_retriever_becomes_a_query_engine_and_a_tool(index: int) -> None:
    retriever = every_retriever()[index]
    engine = retriever.as_query_engine(llm=MockLLM()) if index == 0 else retriever.as_query_engine()
    response = engine.query("who directed [Giant]")
    assert str(response)
    tool = retriever.as_tool()
    assert tool.metadata.name and tool.metadata.description


def test_a_misspelt_name_beside_a_found_one_gets_the_closest_names() -> None:
    retriever = GRetrieverRetriever.from_triples(  # a graph not searched whole, as MetaQA
        GRETRIEVER_MOVIE_TRIPLES,
        embedder=FakeEmbedder(dim=16),
        cache_dir=None,
        region=RegionSettings(whole_graph_max_nodes=2),
    )
    text = gretriever_tool(retriever).call(query="Cleopatre 1963").content
    assert text.startswith("No entity named 'Cleopatre 1963'"), text
    assert "Cleopatra" in text
    found = gretriever_tool(retriever).call(query="Cleopatra 1963").content
    assert "directed by" in found, found
