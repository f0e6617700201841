"""FastToG and G-Retriever give the same retrievals on the embedded store and on the server.

A slice of MetaQA (the 3-hop neighbourhood of eight dev-question topic entities, about 16k
triples) is loaded into the Bolt server once for the module; every method then runs on it and
on an :class:`InMemoryGraphStore` of the same triples, with a fixed seed and a scripted model,
and must retrieve the same communities / subgraphs (and so send the model the same prompts).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.neo4j_loader import write_triples_to_neo4j
from kgcore.graph.neo4j_store import LLAMAINDEX_MAPPING, Neo4jGraphStore
from kgcore.llm.protocol import LLMRequest
from kgcore.llm.scripted import ScriptedLLM
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.paths import PathSettings
from kgcore.types import Triple
from tests.support.fake_embedder import FakeEmbedder
from tests.support.neo4j_testgraphs import metaqa_questions, metaqa_slice, synthetic_triples
from tests.support.neo4j_testserver import BoltServer, delete_label, loaded_stores

QUESTIONS = metaqa_questions(8)
NO_PATHS = PathSettings(max_hops=0)


@pytest.fixture(scope="module")
def metaqa_graph() -> list[Triple]:
    triples = metaqa_slice([e for _, e in QUESTIONS], hops=3, cap=10**9) if QUESTIONS else None
    if not triples:
        pytest.skip("../shared/data/metaqa is not beside the checkout")
    return triples


@pytest.fixture(scope="module")
def stores(
    bolt_server: BoltServer, metaqa_graph: list[Triple]
) -> Iterator[tuple[InMemoryGraphStore, Neo4jGraphStore]]:
    with loaded_stores(bolt_server, metaqa_graph) as pair:
        yield pair


def scripted_reply(purpose: str, prompt: str) -> str:
    """Always picks the first and third options, never knows the answer: chains grow to D_max.

    Options are letters or numbers, whichever the prompt asks for.
    """
    if purpose == "prune" or "Reply with their" in prompt:
        return "{1, 3}" if "numbers" in prompt else "{A, C}"
    if purpose == "reason":
        return "{Unknown}"
    return "{no idea}"


def scripted_model(request: LLMRequest) -> str:
    return scripted_reply(request.purpose, request.prompt_text)


def fasttog_run(store: Any, question: str, seed: int) -> tuple[dict[str, Any], list[str]]:
    # Path planning off: the communities are what is compared here (test_neo4j_paths.py
    # holds path planning to the same rule).
    engine = FastToG(store, FastToGConfig(width=2, max_depth=3, seed=seed, paths=NO_PATHS))
    llm = ScriptedLLM(scripted_model)
    result = engine.run(question, llm)
    summary = {
        "topic": result.topic_entities,
        "start": result.start,
        "chains": result.chains,
        "lcs_steps": result.lcs_steps,
        "depth": result.depth,
        "answer": result.answer,
        "context": result.context,
    }
    return summary, [r.prompt_text for r in llm.requests]


@pytest.mark.parametrize("seed", [0, 5])
def test_fasttog_same_communities_on_both_stores(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore], seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgcore.graph.neighbor_cache import NeighborCache

    memory, server = stores
    monkeypatch.setattr(server, "neighbor_cache", NeighborCache(max_triples=0))  # count queries
    grown = 0
    for question, _ in QUESTIONS:
        server.reset_round_trips()
        on_server, prompts_server = fasttog_run(server, question, seed)
        on_memory, prompts_memory = fasttog_run(memory, question, seed)
        assert on_server == on_memory, question
        assert prompts_server == prompts_memory, question
        grown += sum(len(chain) for chain in on_server["chains"])
        # R + 1 = 3 queries per Local Community Search step, plus entity linking and the
        # start community's triples.
        assert server.queries["neighbors_limit"] == 2 * on_server["lcs_steps"]
        assert server.queries["triples_among"] == on_server["lcs_steps"] + 1
    assert grown > len(QUESTIONS)  # the chains really grew


def test_fasttog_langchain_retriever_same_documents(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore],
) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.language_models import SimpleChatModel
    from langchain_core.messages import BaseMessage

    from langchain_fasttog.retriever import FastToGRetriever

    class ScriptedChat(SimpleChatModel):
        """A LangChain chat model answering like :func:`scripted_reply`."""

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def _call(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> str:
            prompt = "\n".join(str(m.content) for m in messages)
            if "Reply with their" in prompt or "have the facts needed" in prompt:
                return scripted_reply("prune", prompt)
            return scripted_reply("reason", prompt)

    memory, server = stores
    for question, _ in QUESTIONS[:4]:
        docs = []
        for store in (memory, server):
            retriever = FastToGRetriever(
                graph=store,
                llm=ScriptedChat(),
                config=FastToGConfig(width=2, max_depth=3, seed=3, paths=NO_PATHS),
            )
            docs.append([(d.page_content, d.metadata) for d in retriever.invoke(question)])
        assert docs[0] == docs[1] and docs[0], question


def test_cli_open_graph_accepts_a_neo4j_uri(bolt_server: BoltServer) -> None:
    """The ``kgqa ask --kg neo4j://...`` path: the CLI's ``open_graph`` hands URIs to open_store."""
    pytest.importorskip("langchain_core")
    from kgqa.cli import open_graph

    scheme, rest = bolt_server.uri.split("://", 1)
    auth = f"{bolt_server.username}:{bolt_server.password}"
    spec = f"{scheme}://{auth}@{rest}/{bolt_server.database or ''}"
    from kgcore.graph.label_store import LabelGraphStore

    store = open_graph(spec, progress=False)
    # The layout is discovered: whatever the server holds now, a store reading that server.
    assert isinstance(store, Neo4jGraphStore | LabelGraphStore) and store.uri == bolt_server.uri
    store.close()


# -- G-Retriever -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def embedder() -> FakeEmbedder:
    return FakeEmbedder(dim=16, unit="text")


def result_view(result: Any) -> dict[str, Any]:
    """Everything a G-Retriever result says about the retrieved subgraph."""
    data = dict(result.to_metadata())
    data["question"] = result.question
    data["text"] = result.textualize("paper")
    return data


def test_gretriever_same_subgraph_through_the_store(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore], embedder: Any
) -> None:
    from kgcore.gretriever.retriever import GRetriever, RegionSettings

    memory, server = stores
    region = RegionSettings(hops=2, max_nodes=300, neighbor_limit=32)
    on_memory = GRetriever(store=memory, embedder=embedder, region=region)
    on_server = GRetriever(store=server, embedder=embedder, region=region)
    for question, entity in QUESTIONS:
        server.reset_round_trips()
        got = on_server.retrieve(question, topic_entities=[entity])
        want = on_memory.retrieve(question, topic_entities=[entity])
        assert result_view(got) == result_view(want), question
        assert got.edges and got.node_texts
        assert server.queries["neighbors_limit"] <= region.hops  # one query per hop


def test_gretriever_llamaindex_retriever_same_nodes(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore], embedder: Any
) -> None:
    pytest.importorskip("llama_index.core")
    from kgcore.gretriever.retriever import GRetriever, RegionSettings
    from kgcore.linking import bracketed_entities
    from llamaindex_gretriever.retriever import GRetrieverRetriever

    memory, server = stores
    outputs = []
    for store in (memory, server):
        retriever = GRetrieverRetriever(
            GRetriever(store=store, embedder=embedder, region=RegionSettings(hops=2)),
            entity_extractor=bracketed_entities,
        )
        outputs.append(
            [
                (n.node.get_content(), n.node.metadata, n.score)
                for question, _ in QUESTIONS
                for n in retriever.retrieve(question)
            ]
        )
    assert outputs[0] == outputs[1]


@pytest.fixture
def llamaindex_graph(bolt_server: BoltServer) -> Iterator[tuple[list[Triple], Any]]:
    """MetaQA-like triples in LlamaIndex's layout, read by ``Neo4jPropertyGraphStore``.

    ArcadeDB differences, noted: ``Neo4jPropertyGraphStore`` must be built with
    ``refresh_schema=False`` (its schema refresh calls APOC's ``apoc.meta.data``, which ArcadeDB
    does not have) and ``create_indexes=False`` (it creates a VECTOR index, and ArcadeDB creates
    only standard, RANGE and TEXT indexes through Cypher). Its writes (``upsert_nodes``,
    ``upsert_relations``) use APOC too, so the graph is written by our loader in the same
    layout. On Neo4j with APOC, both flags can stay at their defaults.
    """
    pytest.importorskip("llama_index.graph_stores.neo4j")
    from llama_index.graph_stores.neo4j import Neo4jPropertyGraphStore

    triples = sorted(set(synthetic_triples(seed=5, nodes=130, edges=300)))
    writer = Neo4jGraphStore(
        bolt_server.uri,
        bolt_server.username,
        bolt_server.password,
        bolt_server.database,
        mapping=LLAMAINDEX_MAPPING,
    )
    delete_label(writer, drop_schema=False)  # LlamaIndex's labels are fixed: start empty
    write_triples_to_neo4j(writer, triples, progress=False)
    flags = {"refresh_schema": False, "create_indexes": False} if bolt_server.is_arcadedb else {}
    graph_store = Neo4jPropertyGraphStore(
        username=bolt_server.username,
        password=bolt_server.password,
        url=bolt_server.uri,
        database=bolt_server.database or "neo4j",
        **flags,
    )
    try:
        yield triples, graph_store
    finally:
        graph_store.close()
        delete_label(writer, drop_schema=not bolt_server.is_arcadedb)
        writer.close()


def test_gretriever_through_llamaindex_neo4j_property_graph_store(
    llamaindex_graph: tuple[list[Triple], Any], embedder: Any
) -> None:
    from llama_index.core.graph_stores import SimplePropertyGraphStore
    from llama_index.core.graph_stores.types import EntityNode, Relation

    from llamaindex_gretriever import GRetrieverPGRetriever, read_property_graph

    triples, neo4j_graph = llamaindex_graph
    assert read_property_graph(neo4j_graph) == sorted(Triple(*t) for t in triples)

    simple = SimplePropertyGraphStore()
    nodes = {n: EntityNode(name=n, label="entity") for t in triples for n in (t[0], t[2])}
    simple.upsert_nodes(list(nodes.values()))
    simple.upsert_relations(
        [Relation(label=r, source_id=nodes[h].id, target_id=nodes[t].id) for h, r, t in triples]
    )
    questions = ["who directed Heat", "which films are tagged like Alien", "what year is Hub Year"]
    got, want = [], []
    for graph_store, out in ((neo4j_graph, got), (simple, want)):
        sub = GRetrieverPGRetriever(graph_store, embedder=embedder, cache_dir=None)
        for question in questions:
            node = sub.retrieve(question)[0]
            out.append((node.node.get_content(), node.node.metadata["triples"]))
    assert got == want
    assert all(triples_ for _, triples_ in got)
