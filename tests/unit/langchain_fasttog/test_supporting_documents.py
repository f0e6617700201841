"""The documents support the answer (issue 49, item 3): a stuff-documents chain over the FastToG
retriever puts the fact that decided the answer into its model's context.

"who does [Ivy Patel] report to" is answered from FastToG's start community (the topic's
facts closest to the question); the Documents used to hold only the chains, so the context of
a chain over them did not say "Ivy Patel reports to Frank Liu".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_classic.chains.combine_documents import create_stuff_documents_chain
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.prompts import ChatPromptTemplate
from pydantic import Field

from kgcore.graph import InMemoryGraphStore
from langchain_fasttog import FastToGRetriever
from tests.support.fake_embedder import FakeEmbedder
from tests.support.org_graph import (
    ORG_TRIPLES,
    REPORTS_TO_ANSWER,
    REPORTS_TO_FACT,
    REPORTS_TO_QUESTION,
)


class RecordingChat(BaseChatModel):
    """A scripted chat model: ``reply(prompt)`` answers, and every prompt is recorded."""

    reply: Callable[[str], str]
    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "recording-chat"

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        self.prompts.append(prompt)
        message = AIMessage(content=self.reply(prompt))
        return ChatResult(generations=[ChatGeneration(message=message)])


def org_retriever(**fields: Any) -> FastToGRetriever:
    """FastToG over the company graph, ranking by similarity (as ``kgqa ask`` does); every
    reasoning reply names Frank Liu."""
    return FastToGRetriever(
        graph=InMemoryGraphStore.from_triples(ORG_TRIPLES),
        llm=RecordingChat(reply=lambda prompt: "{Frank Liu}"),
        embeddings=FakeEmbedder(dim=64),
        **fields,
    )


def test_a_stuff_documents_chain_reads_the_fact_that_decided_the_answer() -> None:
    retriever = org_retriever()
    docs = retriever.invoke(REPORTS_TO_QUESTION)
    assert docs and {d.metadata["answer"] for d in docs} == {REPORTS_TO_ANSWER}

    reader = RecordingChat(reply=lambda prompt: REPORTS_TO_ANSWER)
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from these facts only:\n\n{context}"), ("human", "{input}")]
    )
    chain = create_stuff_documents_chain(reader, prompt)
    answer = chain.invoke({"context": docs, "input": REPORTS_TO_QUESTION})

    assert answer == REPORTS_TO_ANSWER
    (context,) = reader.prompts
    assert REPORTS_TO_FACT in context
    # The documents that name the answer come first, the start community among them.
    assert docs[0].metadata["supports_answer"]
    supporting = [d for d in docs if REPORTS_TO_FACT in d.page_content]
    assert supporting and all(d.metadata["supports_answer"] for d in supporting)


def test_one_document_is_enough_for_the_supporting_fact() -> None:
    (doc,) = org_retriever(k=1).invoke(REPORTS_TO_QUESTION)
    assert REPORTS_TO_FACT in doc.page_content
    assert doc.metadata["supports_answer"] and doc.metadata["kind"] == "start"
    assert ["Ivy Patel", "reports_to", "Frank Liu"] in doc.metadata["triples"]


def test_the_start_community_is_the_one_the_reasoning_prompt_showed() -> None:
    retriever = org_retriever()
    docs = retriever.invoke(REPORTS_TO_QUESTION)
    (start,) = [d for d in docs if d.metadata["kind"] == "start"]
    assert (start.metadata["chain"], start.metadata["depth"]) == (-1, 0)
    reasoning_prompt = retriever.llm.prompts[-1]  # type: ignore[attr-defined]
    assert start.page_content in reasoning_prompt
