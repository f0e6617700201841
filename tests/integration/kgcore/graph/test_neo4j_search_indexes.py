"""Search in the database (issue 35): names by its full-text index, G-Retriever's vectors by
its vector index, and the same answers as in memory.

A MetaQA slice is loaded into the Bolt server once for the module, with the search indexes
created the server's way (Neo4j 5 DDL, or ArcadeDB's SQL: see
:mod:`kgcore.graph.neo4j_indexes`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import numpy as np
import pytest

from kgcore.exceptions import EntityNotFoundError, GraphStoreError
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.neo4j_loader import write_triples_to_neo4j
from kgcore.graph.neo4j_store import Neo4jGraphStore
from kgcore.gretriever.retriever import GRetriever, RegionSettings
from kgcore.gretriever.store_vectors import StoreVectors, write_embeddings
from kgcore.linking import link_entity_details
from kgcore.types import Triple
from tests.support.fake_embedder import FakeEmbedder
from tests.support.neo4j_testgraphs import metaqa_questions, metaqa_slice
from tests.support.neo4j_testserver import (
    BoltServer,
    create_search_indexes,
    delete_label,
    search_mapping,
)

QUESTIONS = metaqa_questions(6)
DIMENSIONS = 16


def text_embedder() -> FakeEmbedder:
    """One vector per whole name: a name's own vector is its nearest, whatever words it shares."""
    return FakeEmbedder(DIMENSIONS, unit="text")


@pytest.fixture(scope="module")
def graph() -> list[Triple]:
    triples = metaqa_slice([e for _, e in QUESTIONS], hops=2, cap=10**9) if QUESTIONS else None
    if not triples:
        pytest.skip("../shared/data/metaqa is not beside the checkout")
    return triples


@pytest.fixture(scope="module")
def stores(
    bolt_server: BoltServer, graph: list[Triple]
) -> Iterator[tuple[InMemoryGraphStore, Neo4jGraphStore]]:
    server = Neo4jGraphStore(
        bolt_server.uri,
        bolt_server.username,
        bolt_server.password,
        bolt_server.database,
        mapping=search_mapping(bolt_server),
        name_search="fulltext",
    )
    write_triples_to_neo4j(server, graph, progress=False)
    write_embeddings(server, text_embedder(), progress=False)
    create_search_indexes(bolt_server, server, dimensions=DIMENSIONS)
    try:
        yield InMemoryGraphStore.from_triples(graph), server
    finally:
        delete_label(server, drop_schema=not bolt_server.is_arcadedb)
        server.close()


def _misspelt(name: str, rng: random.Random) -> str:
    letters = [i for i, ch in enumerate(name) if ch.isalpha()]
    if len(letters) < 6:
        return name.upper()
    i = rng.choice(letters[1:-1])
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]  # two letters swapped


def _outcome(store: object, name: str) -> str:
    try:
        return link_entity_details(store, name).node  # type: ignore[arg-type]
    except EntityNotFoundError:
        return "(refused)"


def test_fuzzy_linking_in_the_database_agrees_with_memory(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore],
) -> None:
    memory, server = stores
    rng = random.Random(3)
    names = sorted(memory.graph.nodes)
    existing = rng.sample(names, 60)
    misspelt = [_misspelt(n, rng) for n in rng.sample(names, 60)]
    made_up = [f"{rng.choice(names)[:5]} Qzx {rng.randint(10, 99)}" for _ in range(30)]
    server.reset_round_trips()
    disagreements = [
        (name, _outcome(memory, name), _outcome(server, name))
        for name in existing + misspelt + made_up
        if _outcome(memory, name) != _outcome(server, name)
    ]
    assert not disagreements, disagreements[:5]
    assert server.queries["fulltext"] > 0 and server.queries["all_names"] == 0


def test_a_misspelt_word_with_an_apostrophe_is_found_as_the_index_cuts_it(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore],
) -> None:
    # The standard tokenizer keeps "o'malley" one term: its spellings are asked for whole.
    memory, server = stores
    words = sorted({w for n in memory.graph.nodes for w in re.findall(r"\w+'\w{4,}", n.casefold())})
    if not words:
        pytest.skip("no name of the slice has a word with an apostrophe")
    word = words[0]
    misspelt = word[:-3] + word[-2] + word[-3] + word[-1]  # two letters swapped
    found = server.fulltext_names(misspelt)
    assert any(word in name.casefold() for name in found), (word, misspelt, found[:5])


def test_a_store_without_the_full_text_index_says_how_to_create_it(
    bolt_server: BoltServer,
) -> None:
    store = Neo4jGraphStore(
        bolt_server.uri,
        bolt_server.username,
        bolt_server.password,
        bolt_server.database,
        mapping=search_mapping(bolt_server),
        name_search="fulltext",
    )
    try:
        write_triples_to_neo4j(store, [("Heat", "directed_by", "Michael Mann")], progress=False)
        with pytest.raises(GraphStoreError, match="--create-indexes"):
            store.search_nodes("Michael Man")
    finally:
        delete_label(store, drop_schema=not bolt_server.is_arcadedb)
        store.close()


def test_vectors_are_written_once_then_only_for_new_texts(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore],
) -> None:
    _, server = stores
    embedder = text_embedder()
    assert write_embeddings(server, embedder, progress=False).nodes_embedded == 0  # all there
    write_triples_to_neo4j(server, [("Heat", "brand_new_relation", "A New Node")], progress=False)
    summary = write_embeddings(server, embedder, progress=False)
    # Heat may be in the slice already; the new node and the new relation are embedded.
    assert 1 <= summary.nodes_embedded <= 2 and summary.relations_embedded == 1
    stored = server.node_vectors(["A New Node"])["A New Node"]
    assert np.allclose(stored, embedder.embed(["A New Node"])[0])
    with pytest.raises(Exception, match="written with"):
        write_embeddings(server, FakeEmbedder(8, unit="text"), progress=False)


def test_gretriever_reads_the_database_vectors_and_finds_the_same_subgraphs(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore],
) -> None:
    memory, server = stores
    embedder = text_embedder()
    region = RegionSettings(hops=2, max_nodes=300, neighbor_limit=32)
    on_memory = GRetriever(store=memory, embedder=embedder, region=region)
    on_server = GRetriever(store=server, embedder=embedder, region=region)
    assert isinstance(on_server.embedder, StoreVectors)
    for question, entity in QUESTIONS:
        got = on_server.retrieve(question, topic_entities=[entity])
        want = on_memory.retrieve(question, topic_entities=[entity])
        assert [tuple(t) for t in got.edges] == [tuple(t) for t in want.edges], question
        assert got.node_texts == want.node_texts
    vectors = on_server.embedder
    assert vectors.read_count > 0 and vectors.embedded_count == 0  # nothing embedded here


def test_a_question_without_topic_entities_is_seeded_by_the_vector_index(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore],
) -> None:
    _, server = stores
    embedder = text_embedder()
    name = QUESTIONS[0][1]
    nearest = server.nearest_nodes(embedder.embed([name])[0].tolist(), 3)
    assert nearest and nearest[0][0] == name  # its own vector is the nearest
    retriever = GRetriever(store=server, embedder=embedder)
    result = retriever.retrieve(name)  # the question is the name: seeded at that node
    assert name in result.seeds


def test_the_create_mode_writes_the_graph_merge_writes(
    make_store: object, graph: list[Triple]
) -> None:
    part = graph[:500]
    merged, created = make_store(), make_store()  # type: ignore[operator]
    write_triples_to_neo4j(merged, part, progress=False)
    summary = write_triples_to_neo4j(created, [*part, part[0]], progress=False, mode="create")
    assert summary.relationships_created == len(set(part))  # a repeated triple is written once
    names = sorted({n for t in part for n in (t.head, t.tail)})
    assert created.num_nodes() == merged.num_nodes() == len(names)
    assert created.triples_among(names) == merged.triples_among(names)


def test_vectors_of_named_nodes_only(make_store: object, graph: list[Triple]) -> None:
    store = make_store()  # type: ignore[operator]
    write_triples_to_neo4j(store, graph[:50], progress=False)
    wanted = [graph[0].head, graph[0].tail, "not in the graph"]
    summary = write_embeddings(store, text_embedder(), names=wanted, progress=False)
    assert summary.nodes_embedded == 2
    assert sorted(store.node_vectors(wanted)) == sorted(wanted[:2])
    assert (
        write_embeddings(store, text_embedder(), names=wanted, progress=False).nodes_embedded == 0
    )


def test_auto_search_uses_the_index_above_the_copy_limit_and_warns_without_it(
    bolt_server: BoltServer, stores: tuple[InMemoryGraphStore, Neo4jGraphStore]
) -> None:
    _, indexed = stores
    conn = (bolt_server.uri, bolt_server.username, bolt_server.password, bolt_server.database)
    auto = Neo4jGraphStore(*conn, mapping=indexed.mapping, name_cache_limit=0)
    try:
        name = QUESTIONS[0][1]
        assert auto.search_nodes(name, 1) == [name]
        assert auto.queries["fulltext"] >= 1 and auto.queries["all_names"] == 0
    finally:
        auto.close()
    bare = Neo4jGraphStore(*conn, mapping=search_mapping(bolt_server), name_cache_limit=0)
    try:
        write_triples_to_neo4j(bare, [("Heat", "directed_by", "Michael Mann")], progress=False)
        with pytest.warns(UserWarning, match="--create-indexes"):
            assert bare.search_nodes("Heat", 1) == ["Heat"]
        assert bare.queries["name_candidates"] == 1
    finally:
        delete_label(bare, drop_schema=not bolt_server.is_arcadedb)
        bare.close()
