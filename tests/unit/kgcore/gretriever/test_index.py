from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgcore.exceptions import ConfigurationError, EmbeddingError
from kgcore.gretriever import GraphIndex, SentenceTransformerEmbedder, TextualGraph
from kgcore.gretriever.index import EmbeddedTexts, cache_key
from tests.support.fake_embedder import FakeEmbedder


def test_identical_texts_are_embedded_once(movie_triples, embedder) -> None:
    graph = TextualGraph.from_triples(movie_triples)
    index = GraphIndex.build(graph, embedder, cache_dir=None, progress=False)
    relations = sorted(set(graph.edge_relations))
    assert sorted(t for t in embedder.embedded if t in relations) == relations
    assert index.edges.vectors.shape == (len(relations), 8)
    assert index.edge_similarity(index.nodes.vectors[0]).shape == (graph.num_edges,)


def test_vectors_are_unit_norm_float32(movie_triples, embedder) -> None:
    index = GraphIndex.build(
        TextualGraph.from_triples(movie_triples), embedder, cache_dir=None, progress=False
    )
    assert index.nodes.vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(index.nodes.vectors, axis=1), 1.0, rtol=1e-5)


def test_second_build_reuses_the_disk_cache(movie_triples, tmp_path: Path) -> None:
    graph = TextualGraph.from_triples(movie_triples)
    first_embedder, second_embedder = FakeEmbedder(), FakeEmbedder()
    first = GraphIndex.build(graph, first_embedder, cache_dir=tmp_path, progress=False)
    second = GraphIndex.build(graph, second_embedder, cache_dir=tmp_path, progress=False)
    assert first_embedder.embedded and not second_embedder.embedded
    np.testing.assert_array_equal(first.nodes.vectors, second.nodes.vectors)
    np.testing.assert_array_equal(first.edges.rows, second.edges.rows)
    assert len(list(tmp_path.glob("*.npz"))) == 1


def test_cache_key_changes_with_graph_model_and_edge_text(movie_triples) -> None:
    graph = TextualGraph.from_triples(movie_triples)
    other = TextualGraph.from_triples(movie_triples[:-1])
    keys = {
        cache_key(graph, "m", "relation"),
        cache_key(other, "m", "relation"),
        cache_key(graph, "m2", "relation"),
        cache_key(graph, "m", "triple"),
    }
    assert len(keys) == 4


def test_changed_graph_is_embedded_again(movie_triples, tmp_path: Path) -> None:
    GraphIndex.build(
        TextualGraph.from_triples(movie_triples),
        FakeEmbedder(),
        cache_dir=tmp_path,
        progress=False,
    )
    embedder = FakeEmbedder()
    GraphIndex.build(
        TextualGraph.from_triples(movie_triples + [("Shane", "release_year", "1953")]),
        embedder,
        cache_dir=tmp_path,
        progress=False,
    )
    assert "1953" in embedder.embedded


def test_triple_edge_texts(movie_triples, embedder) -> None:
    index = GraphIndex.build(
        TextualGraph.from_triples(movie_triples),
        embedder,
        edge_text="triple",
        cache_dir=None,
        progress=False,
    )
    assert "Cleopatra directed_by Joseph L. Mankiewicz" in index.edges.unique_texts


def test_unknown_edge_text_mode_is_rejected(movie_triples, embedder) -> None:
    with pytest.raises(ConfigurationError):
        GraphIndex.build(
            TextualGraph.from_triples(movie_triples),
            embedder,
            edge_text="sentence",
            cache_dir=None,
        )  # type: ignore[arg-type]


def test_embeddings_not_matching_the_graph_are_rejected(movie_triples) -> None:
    graph = TextualGraph.from_triples(movie_triples)
    with pytest.raises(EmbeddingError):
        GraphIndex.from_vectors(graph, np.ones((2, 4)), np.ones((graph.num_edges, 4)))
    with pytest.raises(EmbeddingError):
        GraphIndex.from_vectors(
            graph, np.full((graph.num_nodes, 4), np.nan), np.ones((graph.num_edges, 4))
        )


def test_embedder_returning_the_wrong_number_of_rows_is_rejected() -> None:
    class Broken(FakeEmbedder):
        def embed(self, texts, progress=False):  # type: ignore[no-untyped-def]
            return super().embed(texts)[:1]

    with pytest.raises(EmbeddingError):
        EmbeddedTexts.embed(["a", "b"], Broken())


def test_missing_texts_need_an_embedder() -> None:
    table = EmbeddedTexts.from_vectors(["a"], np.ones((1, 2), np.float32))
    with pytest.raises(EmbeddingError):
        table.vectors_of(["a", "b"], None)
    assert table.vectors_of(["b"], FakeEmbedder(dim=2)).shape == (1, 2)


def test_bad_batch_size_is_rejected() -> None:
    with pytest.raises(ConfigurationError):
        SentenceTransformerEmbedder(batch_size=0)
