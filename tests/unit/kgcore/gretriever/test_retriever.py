from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgcore.exceptions import (
    ConfigurationError,
    EmbeddingError,
    EmptyGraphError,
    EntityNotFoundError,
    InvalidQuestionError,
)
from kgcore.graph import InMemoryGraphStore
from kgcore.gretriever import (
    GraphIndex,
    GRetriever,
    PCSTSettings,
    RegionSettings,
    TextualGraph,
)
from kgcore.linking import bracketed_entities
from kgcore.types import Triple
from tests.support.fake_embedder import FakeEmbedder


def test_whole_graph_search_returns_a_connected_tree(movie_triples, embedder) -> None:
    retriever = GRetriever.from_triples(movie_triples, embedder, cache_dir=None, progress=False)
    result = retriever.retrieve("who directed Cleopatra")
    assert result.searched_nodes == retriever.index.graph.num_nodes  # type: ignore[union-attr]
    assert result.seeds == ()
    endpoints = {n for t in result.edges for n in (t.head, t.tail)}
    assert endpoints <= set(result.node_texts)
    assert len(result.node_prizes) == result.num_nodes
    assert result.num_edges <= result.num_nodes - 1 or result.num_nodes == 1


def test_node_and_edge_prizes_steer_the_tree() -> None:
    # The question looks exactly like node "Cleopatra" and relation "directed_by".
    question = "who directed Cleopatra"
    vectors = {
        question: [1, 1, 0, 0, 0, 0],
        "Cleopatra": [1, 0.2, 0, 0, 0, 0],
        "directed_by": [0.2, 1, 0, 0, 0, 0],
        "Joseph L. Mankiewicz": [0, 0, 1, 0, 0, 0],
        "release_year": [0, 0, 0, 1, 0, 0],
        "1963": [0, 0, 0, 0, 1, 0],
        "Giant": [0, 0, 0, 0, 0, 1],
        "George Stevens": [0, 0, 0, 0, 1, 1],
    }
    triples = [
        ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
        ("Cleopatra", "release_year", "1963"),
        ("Giant", "release_year", "1963"),
        ("Giant", "directed_by", "George Stevens"),
    ]
    retriever = GRetriever.from_triples(
        triples,
        FakeEmbedder(vectors=vectors),
        cache_dir=None,
        progress=False,
        pcst=PCSTSettings(k_nodes=1, k_edges=1, edge_cost=0.5),
    )
    result = retriever.retrieve(question)
    assert Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz") in result.edges
    assert "Giant" not in result.node_texts


def test_topic_entities_restrict_the_search_to_their_region(movie_triples, embedder) -> None:
    retriever = GRetriever.from_triples(movie_triples, embedder, cache_dir=None, progress=False)
    result = retriever.retrieve("what is Shane about", topic_entities=["shane"], hops=1)
    assert result.seeds == ("Shane",)
    assert result.searched_nodes == 3  # Shane, George Stevens, Western
    assert set(result.node_texts) <= {"Shane", "George Stevens", "Western"}


def test_large_graph_uses_a_region_seeded_by_similarity(movie_triples, embedder) -> None:
    retriever = GRetriever.from_triples(
        movie_triples,
        embedder,
        cache_dir=None,
        progress=False,
        region=RegionSettings(hops=1, num_seeds=1, whole_graph_max_nodes=2),
    )
    result = retriever.retrieve("Cleopatra")
    assert len(result.seeds) == 1
    assert result.searched_nodes < retriever.index.graph.num_nodes  # type: ignore[union-attr]


def test_store_only_retriever_embeds_regions_on_the_fly(movie_triples) -> None:
    embedder = FakeEmbedder()
    retriever = GRetriever(store=InMemoryGraphStore.from_triples(movie_triples), embedder=embedder)
    result = retriever.retrieve("films of George Stevens", topic_entities=["George Stevens"])
    assert "George Stevens" in result.node_texts
    assert "directed_by" in embedder.embedded
    retriever.region = RegionSettings(whole_graph_max_nodes=3)
    # no index, a large graph: the name the question writes is its topic entity (issue 39)
    assert retriever.retrieve("films of George Stevens") == result
    with pytest.raises(EntityNotFoundError, match="closest names"):
        retriever.retrieve("films of that director")
    assert retriever.index is None
    retriever.region = RegionSettings()
    small = retriever.retrieve("films of George Stevens")  # a small graph is embedded whole
    assert retriever.index is not None and small.searched_nodes == retriever.store.num_nodes()


def test_k_larger_than_the_graph_is_capped(movie_triples, embedder) -> None:
    retriever = GRetriever.from_triples(
        movie_triples,
        embedder,
        cache_dir=None,
        progress=False,
        pcst=PCSTSettings(k_nodes=1000, k_edges=1000),
    )
    result = retriever.retrieve("anything")
    assert max(result.node_prizes) <= retriever.index.graph.num_nodes  # type: ignore[union-attr]


def test_bad_input_gets_clear_errors(movie_triples, embedder, tmp_path: Path) -> None:
    with pytest.raises(EmptyGraphError):
        GRetriever.from_triples([], embedder, cache_dir=tmp_path)
    with pytest.raises(ConfigurationError):
        GRetriever()
    with pytest.raises(ConfigurationError):
        PCSTSettings(k_nodes=-1)
    with pytest.raises(ConfigurationError):
        PCSTSettings(edge_cost=float("nan"))
    graph = TextualGraph.from_triples(movie_triples)
    no_embedder = GraphIndex.from_vectors(
        graph, np.ones((graph.num_nodes, 4)), np.ones((graph.num_edges, 4))
    )
    with pytest.raises(EmbeddingError):
        GRetriever(no_embedder)
    retriever = GRetriever(no_embedder, embedder=FakeEmbedder(dim=8))
    with pytest.raises(EmbeddingError):  # 8-dimensional question, 4-dimensional index
        retriever.retrieve("who directed Cleopatra")
    with pytest.raises(InvalidQuestionError):
        retriever.retrieve("   ")


def test_search_checks_similarity_lengths(movie_triples, embedder) -> None:
    retriever = GRetriever.from_triples(movie_triples, embedder, cache_dir=None, progress=False)
    graph = retriever.index.graph  # type: ignore[union-attr]
    with pytest.raises(EmbeddingError):
        retriever.search(graph, np.zeros(2), np.zeros(graph.num_edges))


def test_result_text_and_metadata(movie_triples, embedder) -> None:
    retriever = GRetriever.from_triples(movie_triples, embedder, cache_dir=None, progress=False)
    result = retriever.retrieve("who directed Cleopatra")
    paper = result.textualize("paper")
    assert paper.startswith("node_id,node_attr\n") and "\n\nsrc,edge_attr,dst\n" in paper
    assert result.textualize("triples").count("\n") == result.num_edges - 1
    metadata = result.to_metadata()
    assert metadata["triples"] == [list(t) for t in result.edges]
    assert metadata["objective"] == result.objective


def test_bracketed_entities() -> None:
    assert bracketed_entities("which films share actors with [Giant] and [Shane]") == [
        "Giant",
        "Shane",
    ]
    assert bracketed_entities("no brackets") == []


def test_a_precomputed_query_vector_gives_the_same_result(movie_triples, embedder) -> None:
    retriever = GRetriever.from_triples(movie_triples, embedder, cache_dir=None, progress=False)
    question = "who directed Cleopatra"
    vector = retriever.embed_question(question)
    assert retriever.retrieve(question, query_vector=vector) == retriever.retrieve(question)
    with pytest.raises(EmbeddingError):
        retriever.retrieve(question, query_vector=np.ones(3))
