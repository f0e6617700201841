"""Neo4jGraphStore against a real Bolt server: same answers as the in-memory store."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest

from kgcore.community.sampling import sample_neighborhood
from kgcore.exceptions import GraphStoreError
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.neo4j_loader import write_triples_to_neo4j
from kgcore.graph.neo4j_store import (
    LLAMAINDEX_MAPPING,
    Neo4jGraphStore,
)
from kgcore.graph.store import GraphStore
from kgcore.types import Triple
from tests.support.neo4j_testgraphs import (
    memory_store,
    metaqa_slice,
    metaqa_topic_entities,
    synthetic_triples,
)
from tests.support.neo4j_testserver import BoltServer, fresh_mapping

MakeStore = Callable[..., Neo4jGraphStore]


def assert_same_protocol(
    server: Neo4jGraphStore, memory: InMemoryGraphStore, queries: list[str], seed: int = 0
) -> None:
    """Every protocol call gives the same answer on both stores."""
    rng = random.Random(seed)
    nodes = sorted(memory.graph.nodes)
    assert server.num_nodes() == memory.num_nodes()
    assert server.num_triples() == memory.num_triples()
    missing = ["not a node", "heat ", "HEAT"]
    for name in nodes[:60] + missing:
        assert server.has_node(name) == memory.has_node(name), name
    for limit in (None, 0, 1, 3, 8):
        frontier = nodes + missing
        got = server.neighbors_batch(frontier, limit=limit)
        want = memory.neighbors_batch(frontier, limit=limit)
        assert {k: list(v) for k, v in got.items()} == {k: list(v) for k, v in want.items()}
    for name in rng.sample(nodes, 10):
        assert server.neighbors(name, limit=5) == memory.neighbors(name, limit=5)
    for size in (0, 1, 5, 40, len(nodes)):
        subset = rng.sample(nodes, size) + missing
        assert server.triples_among(subset) == memory.triples_among(subset)
    for text in queries:
        for limit in (1, 5):
            assert server.search_nodes(text, limit) == memory.search_nodes(text, limit), text


SEARCHES = [
    "Heat",
    "heat",
    "HEAT",
    "the matrix",
    "The  Matrix",
    "alien",
    "Aliens",
    "Zoe",
    "Elan",
    "Film 01",
    "persn 12",
    "Hub",
    "1999",
    "nothing like it",
]


def test_protocol_matches_in_memory_store(make_store: MakeStore) -> None:
    triples = synthetic_triples()
    memory = memory_store(triples)
    server = make_store()
    summary = write_triples_to_neo4j(server, triples, batch_size=300, progress=False)
    assert summary.relationships_created == memory.num_triples()
    assert summary.nodes_created == memory.num_nodes()
    assert_same_protocol(server, memory, SEARCHES)
    assert isinstance(server, GraphStore)


def test_search_on_large_graphs_preselects_on_the_server(make_store: MakeStore) -> None:
    """A scan (``name_search="auto"`` above ``name_cache_limit`` nodes without a full-text
    index): candidates come from one server query, then rank."""
    triples = synthetic_triples()
    memory = memory_store(triples)
    server = make_store(name_search="scan")
    write_triples_to_neo4j(server, triples, progress=False)
    # Exact and case/spacing-insensitive matches are found as in memory; fuzzy fill-up only
    # among names sharing a word with the text (so it may return fewer names).
    cases = [
        ("Heat", 1),
        ("heat", 2),
        ("HEAT", 2),
        ("the matrix", 2),
        ("The  Matrix", 2),
        ("Zoë", 1),
        ("Film 003", 1),
    ]
    for text, limit in cases:
        server.reset_round_trips()
        assert server.search_nodes(text, limit) == memory.search_nodes(text, limit), text
        assert server.queries["all_names"] == 0 and server.queries["name_candidates"] == 1
    fuzzy = server.search_nodes("persn 12", 5)
    assert fuzzy and all(server.has_node(name) for name in fuzzy)
    assert isinstance(server.search_nodes("nothing like it at all", 3), list)


def test_llamaindex_mapping_matches_in_memory_store(make_store: MakeStore) -> None:
    """The relationship type as the relation, ``__Entity__``-style labels, ``id`` property."""
    triples = synthetic_triples(seed=11, nodes=120, edges=600)
    memory = memory_store(triples)
    mapping = fresh_mapping(LLAMAINDEX_MAPPING)
    server = make_store(mapping)
    write_triples_to_neo4j(server, triples, batch_size=100, progress=False)
    assert_same_protocol(server, memory, SEARCHES)
    with server.driver.session(database=server.database) as session:
        record = session.execute_read(
            lambda tx: tx.run(
                f"MATCH (n:{mapping.label} {{name: $name}})-[r]->() "
                "RETURN n.id AS id, labels(n) AS labels, type(r) AS type LIMIT 1",
                name="Heat",
            ).single()
        )
    assert record["id"] == "Heat"
    assert "__Node__" in record["labels"]
    assert record["type"] in {
        "directed_by",
        "written_by",
        "starred_actors",
        "has_tags",
        "release_year",
    }


def test_frontier_is_one_round_trip_and_sampling_is_r_plus_one(make_store: MakeStore) -> None:
    triples = synthetic_triples()
    server = make_store(neighbor_cache_triples=0)  # counts the queries a cold store sends
    write_triples_to_neo4j(server, triples, progress=False)
    server.reset_round_trips()
    server.neighbors_batch(sorted({t.head for t in triples})[:100], limit=32)
    assert server.round_trips == 1
    for radius in (1, 2, 3):
        server.reset_round_trips()
        sample_neighborhood(server, ["Heat"], radius=radius, decay=1.0, max_nodes=10_000)
        assert server.round_trips == radius + 1
        assert dict(server.queries) == {"neighbors_limit": radius, "triples_among": 1}
    server.reset_round_trips()
    assert server.neighbors_batch([]) == {} and server.triples_among([]) == []
    assert server.round_trips == 0


@pytest.mark.parametrize("decay,max_neighbors", [(0.5, 8), (0.8, 32), (1.0, 4)])
def test_sample_neighborhood_identical_on_synthetic_graph(
    make_store: MakeStore, decay: float, max_neighbors: int
) -> None:
    triples = synthetic_triples()
    memory = memory_store(triples)
    server = make_store()
    write_triples_to_neo4j(server, triples, progress=False)
    for seeds in (["Heat"], ["Hub Year"], ["Alien", "The Matrix"], ["Film 003", "Year 010"]):
        for seed in (0, 1, 42):
            kwargs = dict(
                radius=3,
                decay=decay,
                max_nodes=120,
                max_neighbors_per_node=max_neighbors,
                seed=seed,
            )
            assert sample_neighborhood(server, seeds, **kwargs) == sample_neighborhood(
                memory, seeds, **kwargs
            ), (seeds, seed)


@pytest.fixture(scope="module")
def metaqa() -> tuple[list[str], list[Triple]]:
    seeds = metaqa_topic_entities(6)
    triples = metaqa_slice(seeds) if seeds else None
    if not triples:
        pytest.skip("../shared/data/metaqa is not beside the checkout")
    return seeds, triples


def test_sample_neighborhood_identical_on_metaqa(
    make_store: MakeStore, metaqa: tuple[list[str], list[Triple]]
) -> None:
    seeds, triples = metaqa
    memory = InMemoryGraphStore.from_triples(triples)
    server = make_store()
    write_triples_to_neo4j(server, triples, progress=False)
    for entity in seeds:
        for seed in (0, 7):
            kwargs = dict(radius=2, decay=0.5, max_nodes=160, max_neighbors_per_node=32, seed=seed)
            assert sample_neighborhood(server, [entity], **kwargs) == sample_neighborhood(
                memory, [entity], **kwargs
            ), entity


def test_query_texts_contain_no_write_clause(make_store: MakeStore) -> None:
    store = make_store()
    # The only procedures called are the read-only index searches.
    searches = ("CALL db.index.fulltext.queryNodes(", "CALL db.index.vector.queryNodes(")
    for name, text in store.query_texts.items():
        for search in searches:
            text = text.replace(search, "")
        words = set(text.upper().replace("(", " ").split())
        assert not words & {
            "CREATE",
            "MERGE",
            "SET",
            "DELETE",
            "REMOVE",
            "DETACH",
            "CALL",
            "LOAD",
            "FOREACH",
            "DROP",
        }, name


# -- connection settings and errors --------------------------------------------------------


def test_settings_come_from_the_environment(
    bolt_server: BoltServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEO4J_URI", bolt_server.uri)
    monkeypatch.setenv("NEO4J_USERNAME", bolt_server.username)
    monkeypatch.setenv("NEO4J_PASSWORD", bolt_server.password)
    if bolt_server.database:
        monkeypatch.setenv("NEO4J_DATABASE", bolt_server.database)
    with Neo4jGraphStore(mapping=fresh_mapping()) as store:
        assert store.uri == bolt_server.uri and store.username == bolt_server.username
        assert store.num_nodes() == 0


def test_bad_credentials_fail_fast_naming_the_uri(bolt_server: BoltServer) -> None:
    start = time.perf_counter()
    with pytest.raises(GraphStoreError, match="refused the credentials") as info:
        Neo4jGraphStore(
            bolt_server.uri, bolt_server.username, "wrong-password", bolt_server.database
        )
    assert bolt_server.uri in str(info.value)
    assert time.perf_counter() - start < 5


def test_query_errors_name_the_uri_and_database(bolt_server: BoltServer) -> None:
    with Neo4jGraphStore(
        bolt_server.uri,
        bolt_server.username,
        bolt_server.password,
        "no_such_database",
        mapping=fresh_mapping(),
    ) as store:
        with pytest.raises(GraphStoreError) as info:
            store.num_nodes()
    assert bolt_server.uri in str(info.value) and "no_such_database" in str(info.value)


def test_existing_graph_with_gaps_is_read_without_errors(make_store: MakeStore) -> None:
    """Nodes without a name and relationships without a relation are skipped, not fatal."""
    store = make_store()
    write_triples_to_neo4j(store, [("a", "r", "b")], progress=False)
    label, name = store.mapping.label, store.mapping.name
    with store.driver.session(database=store.database) as session:
        session.execute_write(
            lambda tx: tx.run(
                f"MATCH (a:{label}) WHERE a.{name} = $a "
                f"CREATE (a)-[:RELATION]->(:{label} {{other: 1}}) "
                f"CREATE (a)-[:RELATION]->(b:{label} {{{name}: $c}})",
                a="a",
                c="c",
            ).consume()
        )
    assert store.neighbors("a") == [Triple("a", "r", "b")]
    assert store.triples_among(["a", "b", "c"]) == [Triple("a", "r", "b")]
    assert store.search_nodes("a", 1) == ["a"]
