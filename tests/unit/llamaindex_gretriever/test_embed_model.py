"""Embeddings done once (issue 49): every LlamaIndex retriever takes ``embed_model`` (and a
LangChain ``Embeddings``) and embeds with it, never silently with the offline model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from llama_index.core.embeddings import MockEmbedding

from kgcore.exceptions import ConfigurationError
from llamaindex_gretriever import GRetrieverPGRetriever, GRetrieverRetriever
from tests.unit.llamaindex_gretriever.test_property_graph import make_store


class CountingMock(MockEmbedding):
    """LlamaIndex's mock embedding model, counting the texts it embeds."""

    texts: list[str] = []

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return super()._get_text_embeddings(texts)


def _embedded_by(retriever: Any) -> str:
    core = retriever.gretriever
    embedder = getattr(core.embedder, "embedder", core.embedder)  # under the text cache
    return str(embedder.model_id)


def test_the_property_graph_sub_retriever_embeds_with_the_embed_model(
    movie_triples: list[tuple[str, str, str]], tmp_path: Path
) -> None:
    model = CountingMock(embed_dim=8, texts=[])
    sub = GRetrieverPGRetriever(make_store(movie_triples), embed_model=model, cache_dir=tmp_path)
    nodes = sub.retrieve("who directed [Giant]")
    assert nodes and model.texts  # the app's model embedded the texts
    assert _embedded_by(sub) == "llamaindex:CountingMock:unknown"


@pytest.mark.parametrize(
    "model", [MockEmbedding(embed_dim=8), DeterministicFakeEmbedding(size=8)], ids=type
)
def test_retrievers_take_a_llamaindex_or_langchain_model(
    model: Any, movie_triples: list[tuple[str, str, str]], tmp_path: Path
) -> None:
    for retriever in (
        GRetrieverRetriever.from_triples(movie_triples, embed_model=model, cache_dir=tmp_path),
        GRetrieverRetriever.from_triples(movie_triples, embedder=model, cache_dir=tmp_path),
        GRetrieverPGRetriever(make_store(movie_triples), embedder=model, cache_dir=tmp_path),
    ):
        assert retriever.retrieve("who directed [Giant]")
        assert _embedded_by(retriever).split(":")[0] in ("llamaindex", "langchain")


def test_two_mock_models_of_two_lengths_share_a_cache_folder_safely(
    movie_triples: list[tuple[str, str, str]], tmp_path: Path
) -> None:
    """Both are named ``llamaindex:MockEmbedding:unknown``: the cache keeps them apart."""
    for dim in (4, 8, 4):
        retriever = GRetrieverRetriever.from_triples(
            movie_triples, embed_model=MockEmbedding(embed_dim=dim), cache_dir=tmp_path
        )
        assert retriever.retrieve("who directed [Giant]")


def test_embedder_and_embed_model_together_are_refused(
    movie_triples: list[tuple[str, str, str]], tmp_path: Path
) -> None:
    model = MockEmbedding(embed_dim=8)
    with pytest.raises(ConfigurationError, match="embedder or embed_model, not both"):
        GRetrieverPGRetriever(make_store(movie_triples), embedder=model, embed_model=model)
    with pytest.raises(ConfigurationError, match="got str"):
        GRetrieverPGRetriever(make_store(movie_triples), embed_model="all-MiniLM-L6-v2")


def test_method_tool_builds_a_method_by_name_with_the_embed_model(
    movie_triples: list[tuple[str, str, str]],
) -> None:
    from kgcore.graph import InMemoryGraphStore
    from kgcore.llm import ScriptedLLM
    from kgcore.methods.tog import ToG
    from llamaindex_gretriever import method_tool

    store = InMemoryGraphStore.from_triples(movie_triples)
    model = CountingMock(embed_dim=8, texts=[])
    llm = ScriptedLLM(["{George Stevens}"])
    tool = method_tool("gretriever", llm, graph=store, embed_model=model, options={"k_nodes": 2})
    assert tool.call(question="who directed [Giant]").content == "George Stevens"
    assert model.texts  # G-Retriever embedded with the app's model
    with pytest.raises(ConfigurationError, match="built already"):
        method_tool(ToG(store), llm, options={"width": 2})
    with pytest.raises(ConfigurationError, match="bad option for method 'tog': widht"):
        method_tool("tog", llm, graph=store, options={"widht": 2})
