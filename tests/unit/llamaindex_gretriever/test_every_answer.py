"""FastToG's LlamaIndex nodes list every answer of the set the method reached (issue 66)."""

from __future__ import annotations

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from llamaindex_gretriever import FastToGRetriever
from llamaindex_gretriever.method_retrievers import evidence_nodes
from tests.support.fake_embedder import FakeEmbedder
from tests.support.many_answers import DIRECTORS, QUESTION, TRIPLES, five_of_eight


def test_a_reader_naming_five_of_eight_leaves_all_eight_in_the_nodes() -> None:
    (first,) = evidence_nodes(five_of_eight(), k=1)
    assert first.node.metadata["answers"] == DIRECTORS
    assert all(d in first.node.get_content() for d in DIRECTORS)


def test_every_reached_answer_is_in_the_retrievers_nodes() -> None:
    reply = "{" + "; ".join(DIRECTORS[:5]) + "}"
    retriever = FastToGRetriever(
        InMemoryGraphStore.from_triples(TRIPLES),
        ScriptedLLM(lambda request: reply),
        embed_model=FakeEmbedder(dim=32),
    )
    nodes = retriever.retrieve(QUESTION)
    text = " ".join(n.node.get_content() for n in nodes)
    listed = {a for n in nodes for a in n.node.metadata.get("answers", [])}
    assert [d for d in DIRECTORS if d not in text and d not in listed] == []
