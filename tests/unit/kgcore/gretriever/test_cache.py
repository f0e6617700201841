"""The embedding caches: damaged files are detected and rebuilt, concurrent writers all succeed,
and a lazy retriever embeds only what its questions reach."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kgcore.exceptions import EntityNotFoundError
from kgcore.gretriever import GraphIndex, GRetriever, TextualGraph
from kgcore.gretriever.index import cache_key
from kgcore.gretriever.text_cache import CachedEmbedder, TextVectorCache
from tests.support.fake_embedder import FakeEmbedder
from tests.support.paths import REPO


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncated":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif how == "empty":
        path.write_bytes(b"")
    else:  # one bit flipped inside the stored vectors
        where = data.find(b"vectors.npy") + 200
        data[where] ^= 0x01
        path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["truncated", "empty", "bitflip"])
def test_a_damaged_text_cache_shard_is_detected_and_rebuilt(tmp_path: Path, how: str) -> None:
    first = FakeEmbedder()
    CachedEmbedder(first, TextVectorCache(tmp_path, first.model_id)).embed(["a", "b", "c"])
    (shard,) = tmp_path.rglob("shard-*.npz")
    _damage(shard, how)
    second = FakeEmbedder()
    cache = TextVectorCache(tmp_path, second.model_id)
    vectors = CachedEmbedder(second, cache).embed(["a", "b", "c"])
    assert cache.rejected == [shard]
    assert sorted(second.embedded) == ["a", "b", "c"]  # embedded again
    np.testing.assert_array_equal(vectors, first.embed(["a", "b", "c"]))
    third = FakeEmbedder()
    CachedEmbedder(third, TextVectorCache(tmp_path, third.model_id)).embed(["a", "b", "c"])
    assert third.embedded == []  # the rebuilt shard is whole


@pytest.mark.parametrize("how", ["truncated", "empty", "bitflip"])
def test_a_damaged_index_cache_is_detected_and_rebuilt(
    movie_triples, tmp_path: Path, how: str
) -> None:
    graph = TextualGraph.from_triples(movie_triples)
    first = GraphIndex.build(graph, FakeEmbedder(), cache_dir=tmp_path, progress=False)
    path = tmp_path / f"{cache_key(graph, FakeEmbedder().model_id, 'relation', 8)}.npz"
    _damage(path, how)
    embedder = FakeEmbedder()
    second = GraphIndex.build(graph, embedder, cache_dir=tmp_path, progress=False)
    assert embedder.embedded  # rebuilt, not loaded
    np.testing.assert_array_equal(first.nodes.vectors, second.nodes.vectors)
    third = FakeEmbedder()
    GraphIndex.build(graph, third, cache_dir=tmp_path, progress=False)
    assert third.embedded == []


FILL = textwrap.dedent(
    """
    import sys
    sys.path[:0] = [{repo!r}]
    from pathlib import Path
    from tests.support.fake_embedder import FakeEmbedder
    from kgcore.gretriever import GraphIndex, TextualGraph
    from kgcore.gretriever.text_cache import CachedEmbedder, TextVectorCache
    root, start = Path(sys.argv[1]), int(sys.argv[2])
    texts = [f"text {{i}}" for i in range(start, start + 300)]
    emb = FakeEmbedder()
    cached = CachedEmbedder(emb, TextVectorCache(root / "texts", emb.model_id))
    for i in range(0, len(texts), 10):  # many small shards: compaction runs too
        cached.embed(texts[i : i + 10])
    triples = [(f"n{{i}}", "r", f"n{{i + 1}}") for i in range(200)]
    GraphIndex.build(TextualGraph.from_triples(triples), emb, cache_dir=root, progress=False)
    """
)


def test_two_processes_filling_the_caches_at_once_leave_valid_caches(tmp_path: Path) -> None:
    script = FILL.format(repo=str(REPO))
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(tmp_path), str(start)])
        for start in (0, 150)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    assert not list(tmp_path.rglob("*.tmp"))  # no temporary file left behind
    emb = FakeEmbedder()
    cache = TextVectorCache(tmp_path / "texts", emb.model_id)
    texts = [f"text {i}" for i in range(450)]
    vectors = CachedEmbedder(emb, cache).embed(texts)
    assert cache.rejected == []
    missing = set(emb.embedded)
    assert len(missing) < 450  # what either process wrote is there (compaction may drop a few)
    np.testing.assert_allclose(vectors, FakeEmbedder().embed(texts), rtol=1e-6)
    (index_file,) = tmp_path.glob("*.npz")
    triples = [(f"n{i}", "r", f"n{i + 1}") for i in range(200)]
    again = FakeEmbedder()
    GraphIndex.build(TextualGraph.from_triples(triples), again, cache_dir=tmp_path, progress=False)
    assert again.embedded == []  # one valid index cache


def test_a_lazy_retriever_embeds_only_the_question_region(movie_triples, tmp_path: Path) -> None:
    big = movie_triples + [(f"film {i}", "release_year", f"{1900 + i}") for i in range(100)]
    embedder = FakeEmbedder()
    retriever = GRetriever.lazy(big, embedder, cache_dir=tmp_path)
    retriever.region = type(retriever.region)(hops=1, whole_graph_max_nodes=10)
    result = retriever.retrieve("who directed Giant", topic_entities=["Giant"])
    assert "Giant" in result.node_texts and retriever.index is None
    embedded = set(embedder.embedded) - {"who directed Giant"}
    assert embedded and not any(t.startswith("film ") for t in embedded)
    again = FakeEmbedder()
    second = GRetriever.lazy(big, again, cache_dir=tmp_path)
    second.region = retriever.region
    assert second.retrieve("who directed Giant", topic_entities=["Giant"]) == result
    assert again.embedded == ["who directed Giant"]  # only the question: the rest is cached
    # without brackets or topic entities: the node name the question writes seeds it (issue 39)
    assert second.retrieve("who directed Giant") == result
    with pytest.raises(EntityNotFoundError, match="closest names"):
        second.retrieve("who directed that film")  # no name: refused, never a whole-graph pass
    index = second.build_index(progress=False)
    assert index.graph.num_nodes == TextualGraph.from_triples(big).num_nodes
    assert second.retrieve("who directed Giant").num_nodes > 0


def test_build_index_prints_an_estimate(movie_triples, tmp_path: Path, capsys) -> None:
    from kgcore.gretriever import retriever as module

    big = [(f"film {i}", "release_year", f"{1900 + i}") for i in range(400)]
    lazy = GRetriever.lazy(big, FakeEmbedder(), cache_dir=tmp_path)
    old, module.BUILD_CHUNK = module.BUILD_CHUNK, 100
    try:
        lazy.build_index(progress=True)
    finally:
        module.BUILD_CHUNK = old
    err = capsys.readouterr().err
    assert "embedding 801 of 801 texts" in err and "min at" in err


def test_two_models_of_one_name_and_two_lengths_never_share_cached_vectors(
    movie_triples, tmp_path: Path
) -> None:
    short, long = FakeEmbedder(dim=4, model_id="same"), FakeEmbedder(dim=8, model_id="same")
    CachedEmbedder(short, TextVectorCache(tmp_path, "same")).embed(["a", "b"])
    vectors = CachedEmbedder(long, TextVectorCache(tmp_path, "same")).embed(["a", "b", "c"])
    assert vectors.shape == (3, 8) and sorted(long.embedded) == ["a", "b", "c"]
    for embedder in (short, long):  # a retriever over each: no vector of the other's length
        retriever = GRetriever.lazy(movie_triples, embedder, cache_dir=tmp_path)
        result = retriever.retrieve("who directed Cleopatra", topic_entities=["Cleopatra"])
        assert "Cleopatra" in result.textualize("triples")
    graph = TextualGraph.from_triples(movie_triples)
    for embedder in (short, long):
        index = GraphIndex.build(graph, embedder, cache_dir=tmp_path, progress=False)
        assert index.dimension == embedder.dim


def test_a_cache_refuses_vectors_of_another_length(tmp_path: Path) -> None:
    from kgcore.exceptions import EmbeddingError

    cache = TextVectorCache(tmp_path, "m", dimension=4)
    with pytest.raises(EmbeddingError, match="vectors of 8 numbers; this cache holds .* of 4"):
        cache.add(["a"], np.ones((1, 8), dtype=np.float32))
