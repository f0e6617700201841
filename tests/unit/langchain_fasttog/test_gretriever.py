"""G-Retriever for LangChain: the retriever (no model) and the chain (issue 49, item 2)."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from kgcore.builder import build_method
from kgcore.exceptions import ConfigurationError, EntityNotFoundError, InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from langchain_fasttog import GRetrieverChain, GRetrieverRetriever
from tests.support.fake_embedder import FakeEmbedder
from tests.support.movie_graph import MOVIE_TRIPLES

QUESTION = "who directed [Cleopatra]"
FACT = ["Cleopatra", "directed_by", "Joseph L. Mankiewicz"]


@pytest.fixture
def store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(MOVIE_TRIPLES)


def retriever(store: InMemoryGraphStore, **fields: object) -> GRetrieverRetriever:
    return GRetrieverRetriever(graph=store, embeddings=FakeEmbedder(dim=64), **fields)


def test_documents_are_the_subgraph_edges_most_relevant_first(store: InMemoryGraphStore) -> None:
    docs = retriever(store).invoke(QUESTION)
    triples = [d.metadata["triples"] for d in docs]
    assert all(len(t) == 1 for t in triples) and [FACT] in triples
    relevance = [d.metadata["relevance"] for d in docs]
    assert relevance == sorted(relevance, reverse=True)
    fact = docs[triples.index([FACT])]
    assert fact.page_content == "(Cleopatra, directed by, Joseph L. Mankiewicz)"
    assert fact.metadata["source"] == "gretriever"
    assert fact.metadata["entity_links"][0]["node"] == "Cleopatra"
    # The subgraph is the one the method's answer prompt shows (the same engine's retrieval).
    engine = build_method("gretriever", store, embeddings=FakeEmbedder(dim=64))
    subgraph = engine.retriever.retrieve(QUESTION, topic_entities=["Cleopatra"])
    assert sorted(map(tuple, (t[0] for t in triples))) == sorted(map(tuple, subgraph.edges))


def test_k_and_topic_entities_per_call(store: InMemoryGraphStore) -> None:
    assert len(retriever(store, k=2).invoke(QUESTION)) == 2
    docs = retriever(store).invoke("who directed it", k=1, topic_entities=["Cleopatra"])
    assert len(docs) == 1 and docs[0].metadata["seeds"] == ["Cleopatra"]
    with pytest.raises(InvalidSettingError, match="k must be"):
        retriever(store).invoke(QUESTION, k=0)


def test_an_unknown_entity_is_a_message_an_error_or_nothing(store: InMemoryGraphStore) -> None:
    question = "who directed [Cleopatre 1936]"
    (doc,) = retriever(store).invoke(question)
    assert doc.metadata["error"] == "entity_not_found" and "Cleopatra" in doc.page_content
    assert retriever(store, on_unknown_entity="empty").invoke(question) == []
    with pytest.raises(EntityNotFoundError):
        retriever(store, on_unknown_entity="raise").invoke(question)


def test_settings_are_folded_and_checked_at_construction(store: InMemoryGraphStore) -> None:
    built = retriever(store, k_nodes=5, hops=1)
    assert built.options == {"k_nodes": 5, "hops": 1}
    assert built.engine().retriever.pcst.k_nodes == 5
    assert built.engine() is built.engine()  # built once: a small graph is embedded whole
    with pytest.raises(InvalidSettingError, match="k_nodes"):
        retriever(store, k_nodes=-1)
    with pytest.raises(ConfigurationError, match="nope"):
        retriever(store, options={"nope": 1})
    with pytest.raises(ConfigurationError, match="asks no chat model"):
        retriever(store, llm=FakeListChatModel(responses=[]))
    with pytest.raises(ValueError, match="nope"):
        retriever(store, nope=1)
    with pytest.raises(ConfigurationError, match="got int"):
        GRetrieverRetriever(graph=store, embeddings=3)


def test_async_documents_are_the_sync_ones(store: InMemoryGraphStore) -> None:
    built = retriever(store)
    sync = built.invoke(QUESTION)
    assert [d.page_content for d in asyncio.run(built.ainvoke(QUESTION))] == [
        d.page_content for d in sync
    ]


def test_the_chain_answers_from_the_subgraph(store: InMemoryGraphStore) -> None:
    llm = FakeListChatModel(responses=["{Joseph L. Mankiewicz}"])
    chain = GRetrieverChain(graph=store, llm=llm, embeddings=FakeEmbedder(dim=64), k_nodes=4)
    out = chain.invoke({"question": QUESTION})
    assert out["answer"] == "Joseph L. Mankiewicz" and out["grounded"]
    assert out["llm_calls"] == 1 and out["method"] == "gretriever"
    assert "(Cleopatra, directed by, Joseph L. Mankiewicz)" in out["context"].splitlines()
    assert asyncio.run(chain.ainvoke(QUESTION))["answer"] == "Joseph L. Mankiewicz"


def test_the_builder_names_what_it_builds() -> None:
    store = InMemoryGraphStore.from_triples([("a", "r", "b")])
    with pytest.raises(ConfigurationError, match="unknown (graph )?method 'nope'"):
        build_method("nope", store)
    with pytest.raises(ConfigurationError, match="needs a knowledge graph"):
        build_method("tog", None)
    assert build_method("cot-sc", None, options={"n": 3}).n == 3
