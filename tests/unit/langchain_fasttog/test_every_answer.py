"""FastToG's LangChain documents list every answer of the set the method reached (issue 66)."""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from kgcore.graph import InMemoryGraphStore
from langchain_fasttog import FastToGRetriever
from langchain_fasttog.retriever import documents_to_result, result_to_documents
from tests.support.fake_embedder import FakeEmbedder
from tests.support.many_answers import DIRECTORS, LABEL, QUESTION, TRIPLES, five_of_eight


def test_a_reader_naming_five_of_eight_leaves_all_eight_in_the_documents() -> None:
    result = five_of_eight()
    docs = result_to_documents(result, k=1)  # the answers document comes first
    assert docs[0].metadata["kind"] == "answers"
    assert docs[0].metadata["answers"] == DIRECTORS
    assert all(d in docs[0].page_content for d in DIRECTORS) and LABEL in docs[0].page_content
    rebuilt = documents_to_result(QUESTION, result_to_documents(result))
    assert rebuilt.answer == result.answer and rebuilt.chains == []


def test_every_reached_answer_is_in_the_retrievers_documents() -> None:
    llm = FakeListChatModel(responses=["{" + "; ".join(DIRECTORS[:5]) + "}"] * 30)
    retriever = FastToGRetriever(
        graph=InMemoryGraphStore.from_triples(TRIPLES), llm=llm, embeddings=FakeEmbedder(dim=32)
    )
    docs = retriever.invoke(QUESTION)
    text = " ".join(d.page_content for d in docs)
    listed = {a for d in docs for a in d.metadata.get("answers", [])}
    assert [d for d in DIRECTORS if d not in text and d not in listed] == []
