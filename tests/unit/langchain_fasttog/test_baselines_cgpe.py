"""LangChain Runnables and retriever for the baselines, ToG and CGPE (fake chat models)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from kgcore.exceptions import ConfigurationError, InvalidQuestionError
from kgcore.graph import InMemoryGraphStore
from langchain_fasttog.baselines import BaselineChain
from langchain_fasttog.cgpe import CGPEChain, CGPERetriever
from langchain_fasttog.tog import ToGChain

TRIPLES = [
    ("Somewhere in Time", "starred_actors", "Jane Seymour"),
    ("Somewhere in Time", "directed_by", "Jeannot Szwarc"),
]
CGPE_REPLIES = [
    '["Jane Seymour", "films", "director"]',
    "{A: films}",
    "{A}",
    "{A: films}",
    "{A: director}",
    "{A}",
    "{Jeannot Szwarc}",
]


class RunNames(BaseCallbackHandler):
    def __init__(self) -> None:
        self.names: list[str] = []

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: UUID, **kw: Any
    ) -> None:
        self.names.append(str(kw.get("name") or kw.get("metadata", {}).get("name", "")))

    def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: UUID, **kw: Any) -> None:
        self.names.append(str(kw.get("name", "")))


@pytest.fixture()
def store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(TRIPLES)


def test_cot_sc_chain_votes_and_names_its_runs() -> None:
    handler = RunNames()
    llm = FakeListChatModel(responses=["{Paris}", "{Lyon}", "so {paris}"])
    chain = BaselineChain(llm=llm, kind="cot-sc", n=3)
    out = chain.invoke({"question": "capital of France?"}, config={"callbacks": [handler]})
    assert out["answer"] == "Paris"
    assert out["llm_calls"] == 3
    assert out["extra"]["votes"] == 2
    assert handler.names == ["cot-sc.cot_sc"] * 3


async def test_baseline_chain_async_and_batch() -> None:
    # names, not letters: a lone "A" reads as an option label, no answer (issue 51)
    chain = BaselineChain(llm=FakeListChatModel(responses=["{Ada}", "{Bea}"]), kind="io")
    assert (await chain.ainvoke("q1"))["answer"] == "Ada"
    assert [o["answer"] for o in chain.batch(["q", "q"])] in (["Bea", "Ada"], ["Ada", "Bea"])


def test_chains_refuse_empty_questions_and_non_graphs() -> None:
    with pytest.raises(InvalidQuestionError):
        BaselineChain(llm=FakeListChatModel(responses=["{x}"])).invoke("  ")
    with pytest.raises(ConfigurationError, match="GraphStore.*got dict"):
        ToGChain(graph={"not": "a graph"}, llm=FakeListChatModel(responses=["x"]))


def test_tog_chain_passes_topic_entities_and_settings(store: InMemoryGraphStore) -> None:
    llm = FakeListChatModel(responses=["{A: 0.9, B: 0.1}", "Yes {Jeannot Szwarc}"])
    chain = ToGChain(graph=store, llm=llm, width=1, max_depth=1)
    out = chain.invoke({"question": "who directed it", "topic_entities": ["Somewhere in Time"]})
    assert out["answer"] == "Jeannot Szwarc"
    assert out["llm_calls"] == 2 and out["depth"] == 1
    assert out["context"] == "(Somewhere in Time, directed by, Jeannot Szwarc)"


def test_cgpe_retriever_returns_one_document_per_path(store: InMemoryGraphStore) -> None:
    retriever = CGPERetriever(graph=store, llm=FakeListChatModel(responses=CGPE_REPLIES))
    docs = retriever.invoke("which person directed the films acted by Jane Seymour")
    assert [d.page_content for d in docs] == [
        "Jane Seymour <-starred actors- Somewhere in Time -directed by-> Jeannot Szwarc"
    ]
    meta = docs[0].metadata
    assert meta["answer"] == "Jeannot Szwarc" and meta["source"] == "cgpe"
    assert meta["llm_calls"] == 7 and meta["depth"] == 2


async def test_cgpe_chain_async_with_a_config_field(store: InMemoryGraphStore) -> None:
    chain = CGPEChain(graph=store, llm=FakeListChatModel(responses=CGPE_REPLIES), max_depth=1)
    out = await chain.ainvoke("which person directed the films acted by Jane Seymour")
    assert out["depth"] == 1
    assert out["extra"]["paths"] == ["Jane Seymour <-starred actors- Somewhere in Time"]


def test_cgpe_retriever_k_limits_documents(store: InMemoryGraphStore) -> None:
    retriever = CGPERetriever(graph=store, llm=FakeListChatModel(responses=["x"]), k=0)
    with pytest.raises(ValueError, match="k must be"):
        retriever.invoke("anything about Jane Seymour")
