from __future__ import annotations

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from kgcore.embeddings import DocumentsEmbedder
from kgcore.exceptions import ConfigurationError
from kgcore.graph import InMemoryGraphStore
from kgcore.paths import PathSettings
from langchain_fasttog import FastToGChain, FastToGRetriever, LangChainEmbedder
from langchain_fasttog.embeddings import as_text_embedder
from tests.support.fake_embedder import FakeEmbedder


class FakeEmbeddings(Embeddings):
    """The shared fake embedder as a LangChain embedding model, its rows three times too long
    (a LangChain model need not return unit rows); records every batch."""

    def __init__(self, *keywords: str) -> None:
        self.fake = FakeEmbedder(keywords=keywords)
        self.batches: list[list[str]] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        return [[3.0 * x for x in row] for row in self.fake.embed_documents(texts)]

    def embed_query(self, text: str) -> list[float]:
        raise AssertionError("the question is embedded with the other texts, in one batch")


def test_langchain_embedder_gives_unit_rows_named_by_the_model() -> None:
    model = FakeEmbeddings("film", "year")
    embedder = LangChainEmbedder(model)
    vectors = embedder.embed(["film film", "a year"])
    assert vectors.dtype == np.float32 and vectors.shape == (2, model.fake.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    np.testing.assert_allclose(vectors, model.fake.embed(["film film", "a year"]), rtol=1e-6)
    assert vectors[0] @ vectors[0] > vectors[0] @ vectors[1]
    assert model.batches == [["film film", "a year"]]  # one batch, by embed_documents
    assert embedder.model_id == "langchain:FakeEmbeddings:unknown"
    assert embedder.embed([]).shape == (0, model.fake.dim) and len(model.batches) == 1


def test_as_text_embedder_wraps_keeps_or_refuses() -> None:
    assert as_text_embedder(None) is None
    wrapped = as_text_embedder(FakeEmbeddings("x"))
    assert isinstance(wrapped, DocumentsEmbedder)
    assert as_text_embedder(wrapped) is wrapped  # already a TextEmbedder
    with pytest.raises(ConfigurationError, match="LangChain Embeddings .* got str"):
        as_text_embedder("all-MiniLM-L6-v2")
    with pytest.raises(ConfigurationError, match="got dict"):
        LangChainEmbedder({})


@pytest.mark.parametrize(
    ("keyword", "question", "chosen", "answer"),
    [
        (
            "directed",
            "which films were directed by the director of [Cleopatra]",
            ["All About Eve", "Joseph L. Mankiewicz"],
            "All About Eve",
        ),
        (
            "starred",
            "which films starred the actors of [Cleopatra]",
            ["Butterfield 8", "Elizabeth Taylor"],
            "Butterfield 8",
        ),
    ],
)
def test_retriever_ranks_the_first_choice_with_the_apps_embeddings(
    movie_store: InMemoryGraphStore, keyword: str, question: str, chosen: list[str], answer: str
) -> None:
    embeddings = FakeEmbeddings(keyword)
    reasoner = FakeListChatModel(responses=[f"{{{answer}}}", "{never read}"])
    retriever = FastToGRetriever(
        graph=movie_store,
        llm=reasoner,
        width=1,
        max_depth=1,
        max_community_size=2,
        embeddings=embeddings,  # the default first_choice="auto" then ranks by similarity
        paths=PathSettings(max_hops=0),  # off: the community phases' embedding calls are counted
    )
    docs = retriever.invoke(question)
    # One LLM call, the reasoning: the first choice asked no LLM.
    assert reasoner.i == 1
    # Two embedding calls: the topic facts with the question first, then the first choice's
    # options (the question's embedding is kept from the first call).
    assert len(embeddings.batches) == 2
    assert embeddings.batches[0][0] == question and question not in embeddings.batches[1]
    assert [d.metadata["entities"] for d in docs if d.metadata["kind"] == "chain"] == [chosen]
    assert docs[0].metadata["answer"] == answer


def test_embeddings_are_checked_when_the_retriever_is_built(
    movie_store: InMemoryGraphStore,
) -> None:
    llm = FakeListChatModel(responses=["{x}"])
    with pytest.raises(ConfigurationError, match="got int"):
        FastToGRetriever(graph=movie_store, llm=llm, embeddings=3)
    paper = FastToGChain(graph=movie_store, llm=llm, preset="paper")
    assert paper.text_embedder() is None  # the LLM makes every choice: nothing to rank
    assert paper.engine().first_choice == "llm"


def test_without_embeddings_the_adapters_rank_as_kgqa_does(
    movie_store: InMemoryGraphStore,
) -> None:
    """The embeddings extra is installed here: the offline all-MiniLM-L6-v2, one per process,
    as ``kgqa`` gives FastToG, so ``"auto"`` and ``topic_facts`` act the same."""
    from kgcore.embeddings import SentenceTransformerEmbedder, default_embedder

    llm = FakeListChatModel(responses=["{x}"])
    retriever = FastToGRetriever(graph=movie_store, llm=llm)
    first = retriever.text_embedder()
    assert isinstance(first, SentenceTransformerEmbedder) and first is default_embedder()
    assert FastToGChain(graph=movie_store, llm=llm).text_embedder() is first
    engine = retriever.engine()
    assert engine.first_choice == engine.chain_choice == "similarity"
    assert engine.topic_facts.gives_topic_facts


def test_without_the_extra_one_warning_names_the_settings_that_are_off(
    movie_store: InMemoryGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kgcore.builder.embedder as chooser

    missing = "sentence-transformers is not installed: pip install 'kg-retrievers[embeddings]'"
    monkeypatch.setattr(chooser, "default_embedder_missing", lambda: missing)
    monkeypatch.setattr(chooser, "_said", set())
    llm = FakeListChatModel(responses=["{x}", "{x}"])
    with pytest.warns(chooser.EmbeddingsOffWarning) as said:
        retriever = FastToGRetriever(graph=movie_store, llm=llm, topic_facts=2)
        retriever.invoke("who directed [Cleopatra]")
        FastToGChain(graph=movie_store, llm=llm, topic_facts=2).engine()
    assert len(said) == 1  # once, however often engines are built
    text = str(said[0].message)
    assert "first_choice='auto' asks the LLM" in text and "topic_facts=2" in text
    assert "kg-retrievers[embeddings]" in text
    assert (
        retriever.engine().first_choice == "llm"
        and not retriever.engine().topic_facts.gives_topic_facts
    )
    with pytest.raises(ConfigurationError, match="first_choice='similarity' .* embeddings"):
        FastToGRetriever(graph=movie_store, llm=llm, first_choice="similarity")
