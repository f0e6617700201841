from __future__ import annotations

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.language_models.fake_chat_models import FakeListChatModel

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
    assert embedder.embed([]).shape == (0, 0) and len(model.batches) == 1


def test_as_text_embedder_wraps_keeps_or_refuses() -> None:
    assert as_text_embedder(None) is None
    wrapped = as_text_embedder(FakeEmbeddings("x"))
    assert isinstance(wrapped, LangChainEmbedder)
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
    # Two embedding calls, the question first in each: the topic facts, then the first choice.
    assert len(embeddings.batches) == 2
    assert all(batch[0] == question for batch in embeddings.batches)
    assert [d.metadata["entities"] for d in docs if d.metadata["kind"] == "chain"] == [chosen]
    assert docs[0].metadata["answer"] == answer


def test_embeddings_are_checked_when_the_retriever_is_built(
    movie_store: InMemoryGraphStore,
) -> None:
    llm = FakeListChatModel(responses=["{x}"])
    with pytest.raises(ConfigurationError, match="got int"):
        FastToGRetriever(graph=movie_store, llm=llm, embeddings=3)
    chain = FastToGChain(graph=movie_store, llm=llm)
    assert chain.text_embedder() is None  # no embeddings: the paper's LLM choice
    assert chain.engine().first_choice == "llm"


def test_the_offline_default_embedder_is_built_once_per_retriever(
    movie_store: InMemoryGraphStore,
) -> None:
    llm = FakeListChatModel(responses=["{x}"])
    retriever = FastToGRetriever(graph=movie_store, llm=llm, first_choice="similarity")
    first = retriever.text_embedder()
    assert first is not None and retriever.text_embedder() is first
    assert retriever.engine().embedder is first
