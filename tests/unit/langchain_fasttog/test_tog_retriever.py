"""ToG as a LangChain retriever: the triples it kept, as the reasoning prompt showed them
(issue 49, item 2)."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.tog import ToG, ToGConfig
from langchain_fasttog import ToGChain, ToGRetriever
from tests.support.movie_graph import MOVIE_TRIPLES

QUESTION = "who directed [Cleopatra]"
#: The relations to follow, the entities to keep, the answer.
REPLIES = ["{A: 0.5, B: 0.5}", "Yes {Joseph L. Mankiewicz}"]


@pytest.fixture
def store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(MOVIE_TRIPLES)


def test_documents_are_the_kept_triples_supporting_ones_first(store: InMemoryGraphStore) -> None:
    docs = ToGRetriever(graph=store, llm=FakeListChatModel(responses=REPLIES)).invoke(QUESTION)
    # The same run as the core engine's: its kept triples are the documents.
    core = ToG(store).run(QUESTION, ScriptedLLM(REPLIES))
    assert sorted(d.page_content for d in docs) == sorted(core.context.splitlines())
    assert docs[0].page_content == "(Cleopatra, directed by, Joseph L. Mankiewicz)"
    assert [d.metadata["supports_answer"] for d in docs] == [True] + [False] * (len(docs) - 1)
    meta = docs[0].metadata
    assert meta["answer"] == core.answer and meta["source"] == "tog"
    assert meta["topic_entities"] == ["Cleopatra"] and meta["llm_calls"] == core.llm_calls


def test_config_fields_k_and_an_unknown_entity(store: InMemoryGraphStore) -> None:
    llm = FakeListChatModel(responses=REPLIES)
    retriever = ToGRetriever(graph=store, llm=llm, width=2, k=1)
    assert retriever.config == ToGConfig(width=2)
    assert len(retriever.invoke(QUESTION)) == 1
    (doc,) = retriever.invoke("who directed [Cleopatre 1936]")
    assert doc.metadata["error"] == "entity_not_found"
    assert ToGChain(graph=store, llm=llm, width=2).config == retriever.config
