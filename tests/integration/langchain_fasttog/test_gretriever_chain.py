"""G-Retriever in LangChain chains on a real local GGUF model and the offline all-MiniLM-L6-v2
(slow; plumbing, not accuracy): the method's chain, and an LCEL RAG chain over the retriever."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough

from kgcore.graph import InMemoryGraphStore
from kglocal.locations import smollm_gguf_path
from langchain_fasttog import ChatLlamaCppLocal, GRetrieverChain, GRetrieverRetriever
from tests.support.movie_graph import MOVIE_TRIPLES

pytestmark = pytest.mark.slow

QUESTION = "who directed [Cleopatra]"
FACT = "(Cleopatra, directed by, Joseph L. Mankiewicz)"


@pytest.fixture(scope="module")
def smollm() -> ChatLlamaCppLocal:
    return ChatLlamaCppLocal(
        model_path=str(smollm_gguf_path()), n_ctx=2048, max_tokens=24, temperature=0.0
    )


@pytest.fixture(scope="module")
def store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(MOVIE_TRIPLES)


def test_the_gretriever_chain_answers_on_a_real_gguf(
    store: InMemoryGraphStore, smollm: ChatLlamaCppLocal
) -> None:
    out = GRetrieverChain(graph=store, llm=smollm).invoke({"question": QUESTION})
    assert out["method"] == "gretriever" and 1 <= out["llm_calls"] <= 2  # one answer, one retry
    assert out["prompt_tokens"] > 0  # llama.cpp reports usage
    assert FACT in out["context"].splitlines()  # the subgraph the model read
    nodes = {x for line in out["context"].splitlines() for x in line.strip("()").split(", ")}
    assert out["answer"] == "Unknown" or set(out["answer"].split("; ")) <= nodes


def test_an_lcel_rag_chain_over_the_gretriever_retriever(
    store: InMemoryGraphStore, smollm: ChatLlamaCppLocal
) -> None:
    seen: list[str] = []

    def facts(docs: list[Document]) -> str:
        text = "\n".join(d.page_content for d in docs)
        seen.append(text)
        return text

    prompt = ChatPromptTemplate.from_template(
        "Facts:\n{facts}\nQuestion: {question}\nAnswer with a name from the facts:"
    )
    retriever = GRetrieverRetriever(graph=store, k=8)
    rag = (
        {"facts": retriever | facts, "question": RunnablePassthrough()}
        | prompt
        | smollm
        | StrOutputParser()
    )
    answer = rag.invoke(QUESTION)
    assert isinstance(answer, str) and answer.strip()
    (context,) = seen
    assert FACT in context.splitlines()
