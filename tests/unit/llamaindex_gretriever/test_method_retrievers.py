"""FastToG, ToG and CGPE in LlamaIndex: retrievers, the query engine and its tool (issue 49)."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode
from llama_index.core.tools import QueryEngineTool

from kgcore.exceptions import ConfigurationError, EntityNotFoundError, InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.cgpe import CGPE
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.methods.tog import ToGConfig
from llamaindex_gretriever import (
    CGPERetriever,
    FastToGRetriever,
    KGMethodQueryEngine,
    ToGRetriever,
)
from tests.support.fake_embedder import FakeEmbedder
from tests.support.movie_graph import MOVIE_TRIPLES
from tests.support.org_graph import (
    ORG_TRIPLES,
    REPORTS_TO_ANSWER,
    REPORTS_TO_FACT,
    REPORTS_TO_QUESTION,
)

QUESTION = "who directed [Cleopatra]"
TOG_REPLIES = ["{A: 0.5, B: 0.5}", "Yes {Joseph L. Mankiewicz}"]
CGPE_REPLIES = ['["Cleopatra", "director"]', "{A: director}", "{A}", "{Joseph L. Mankiewicz}"]


@pytest.fixture
def store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(MOVIE_TRIPLES)


def org_retriever(llm: ScriptedLLM, **kwargs: object) -> FastToGRetriever:
    store = InMemoryGraphStore.from_triples(ORG_TRIPLES)
    return FastToGRetriever(store, llm, embed_model=FakeEmbedder(dim=64), **kwargs)


def test_fasttog_nodes_hold_the_fact_that_decided_the_answer() -> None:
    llm = ScriptedLLM(lambda request: "{Frank Liu}")
    nodes = org_retriever(llm).retrieve(REPORTS_TO_QUESTION)
    assert {n.node.metadata["answer"] for n in nodes} == {REPORTS_TO_ANSWER}
    first = nodes[0]
    assert first.score == 1.0 and REPORTS_TO_FACT in first.node.get_content()
    assert [n.score for n in nodes] == sorted((n.score for n in nodes), reverse=True)
    # The metadata is hidden from the LLM and the embedder: the text is the facts alone.
    assert first.node.get_content(MetadataMode.LLM) == first.node.get_content()
    assert first.node.get_content(MetadataMode.EMBED) == first.node.get_content()
    # The same requests as the core engine's for the same settings.
    core_llm = ScriptedLLM(lambda request: "{Frank Liu}")
    store = InMemoryGraphStore.from_triples(ORG_TRIPLES)
    FastToG(store, embedder=FakeEmbedder(dim=64)).run(REPORTS_TO_QUESTION, core_llm)
    assert [r.prompt_text for r in llm.requests] == [r.prompt_text for r in core_llm.requests]


def test_the_query_engine_answers_with_the_method_in_one_run() -> None:
    llm = ScriptedLLM(lambda request: "{Frank Liu}")
    retriever = org_retriever(llm)
    response = retriever.as_query_engine().query(REPORTS_TO_QUESTION)
    assert str(response) == REPORTS_TO_ANSWER
    assert response.metadata is not None
    assert len(llm.requests) == response.metadata["result"]["llm_calls"]  # one run
    assert any(REPORTS_TO_FACT in n.node.get_content() for n in response.source_nodes)
    again = asyncio.run(retriever.as_query_engine().aquery(REPORTS_TO_QUESTION))
    assert str(again) == REPORTS_TO_ANSWER
    assert [n.node.get_content() for n in again.source_nodes] == [
        n.node.get_content() for n in response.source_nodes
    ]


def test_a_retriever_query_engine_reads_the_method_nodes(store: InMemoryGraphStore) -> None:
    retriever = ToGRetriever(store, ScriptedLLM(TOG_REPLIES))
    response = RetrieverQueryEngine.from_args(retriever, llm=MockLLM()).query(QUESTION)
    texts = [n.node.get_content() for n in response.source_nodes]
    assert texts[0] == "(Cleopatra, directed by, Joseph L. Mankiewicz)"


def test_the_tool_answers_and_names_the_closest_entities(store: InMemoryGraphStore) -> None:
    tool = ToGRetriever(store, ScriptedLLM(TOG_REPLIES * 2)).as_tool(name="movies")
    assert isinstance(tool, QueryEngineTool) and tool.metadata.name == "movies"
    assert tool.call(input=QUESTION).content == "Joseph L. Mankiewicz"
    unknown = tool.call(input="who directed [Cleopatre 1936]").content
    assert "Closest names in the graph: [Cleopatra]" in unknown


def test_tog_and_cgpe_nodes_and_their_settings(store: InMemoryGraphStore) -> None:
    tog = ToGRetriever(store, ScriptedLLM(TOG_REPLIES), width=2, k=2)
    assert tog.engine.config == ToGConfig(width=2)
    nodes = tog.retrieve(QUESTION)
    assert len(nodes) == 2 and nodes[0].node.metadata["source"] == "tog"
    one = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
    cgpe = CGPERetriever(one, ScriptedLLM(CGPE_REPLIES), max_depth=1)
    (node,) = cgpe.retrieve("who is the director of Cleopatra")
    core = CGPE(one, max_depth=1).run("who is the director of Cleopatra", ScriptedLLM(CGPE_REPLIES))
    assert node.node.get_content() == core.extra["paths"][0]
    assert node.node.metadata["answer"] == core.answer == "Joseph L. Mankiewicz"


def test_an_unknown_entity_is_a_message_nothing_or_an_error(store: InMemoryGraphStore) -> None:
    question = "who directed [Cleopatre 1936]"
    (node,) = ToGRetriever(store, ScriptedLLM([])).retrieve(question)
    assert node.node.metadata["error"] == "entity_not_found"
    assert ToGRetriever(store, ScriptedLLM([]), on_unknown_entity="empty").retrieve(question) == []
    with pytest.raises(EntityNotFoundError):
        ToGRetriever(store, ScriptedLLM([]), on_unknown_entity="raise").retrieve(question)
    response = ToGRetriever(store, ScriptedLLM([])).as_query_engine().query(question)
    assert response.metadata is not None and response.source_nodes == []
    assert response.metadata["error"] == "entity_not_found"
    assert response.metadata["suggestions"][0] == "Cleopatra"


def test_bad_settings_fail_when_built(store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM([])
    with pytest.raises(InvalidSettingError, match="k must be"):
        FastToGRetriever(store, llm, k=0)
    with pytest.raises(ConfigurationError, match="on_unknown_entity"):
        FastToGRetriever(store, llm, on_unknown_entity="ignore")
    with pytest.raises(ConfigurationError, match="not both"):
        FastToGRetriever(store, llm, FastToGConfig(), preset="paper")
    with pytest.raises(ConfigurationError, match="no embedding"):
        ToGRetriever(store, llm, embeddings=FakeEmbedder())
    with pytest.raises(ValueError, match="nope"):
        CGPERetriever(store, llm, nope=1)
    paper = FastToGRetriever(store, llm, preset="paper", width=2)
    assert paper.engine.config == FastToGConfig.paper().with_overrides(width=2)


def test_a_llamaindex_embedding_model_ranks_fasttog(store: InMemoryGraphStore) -> None:
    ranked = FastToGRetriever(store, ScriptedLLM([]), embed_model=MockEmbedding(embed_dim=8))
    assert ranked.engine.first_choice == "similarity"
    llm_chooses = FastToGRetriever(store, ScriptedLLM([]), first_choice="llm", chain_choice="llm")
    assert (llm_chooses.engine.first_choice, llm_chooses.engine.chain_choice) == ("llm", "llm")
    assert isinstance(ranked.as_query_engine(), KGMethodQueryEngine)
