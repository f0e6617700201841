from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core import PropertyGraphIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.graph_stores import SimplePropertyGraphStore
from llama_index.core.graph_stores.types import ChunkNode, EntityNode, Relation
from llama_index.core.llms import MockLLM

from kgcore.exceptions import ConfigurationError, EmptyGraphError
from kgcore.gretriever import RegionSettings
from kgcore.types import Triple
from llamaindex_gretriever import GRetrieverPGRetriever, GRetrieverRetriever, read_property_graph


def make_store(triples) -> SimplePropertyGraphStore:  # type: ignore[no-untyped-def]
    store = SimplePropertyGraphStore()
    nodes = {n: EntityNode(name=n, label="entity") for t in triples for n in (t[0], t[2])}
    store.upsert_nodes(list(nodes.values()))
    store.upsert_relations(
        [Relation(label=r, source_id=nodes[h].id, target_id=nodes[t].id) for h, r, t in triples]
    )
    return store


def test_reads_entity_triplets_and_skips_text_chunks(movie_triples) -> None:
    store = make_store(movie_triples)
    chunk = ChunkNode(text="Cleopatra is a 1963 film.")
    store.upsert_nodes([chunk])
    store.upsert_relations([Relation(label="MENTIONS", source_id=chunk.id, target_id="Cleopatra")])
    assert read_property_graph(store) == sorted(Triple(*t) for t in movie_triples)


def test_plugs_into_property_graph_index_as_a_sub_retriever(
    movie_triples, embedder, tmp_path: Path
) -> None:
    store = make_store(movie_triples)
    index = PropertyGraphIndex.from_existing(
        property_graph_store=store,
        llm=MockLLM(),
        embed_model=MockEmbedding(embed_dim=8),
        kg_extractors=[],
        embed_kg_nodes=False,
    )
    sub = GRetrieverPGRetriever(store, embedder=embedder, cache_dir=tmp_path)
    nodes = index.as_retriever(sub_retrievers=[sub]).retrieve("who directed Giant")
    assert len(nodes) == 1
    triples = {tuple(t) for t in nodes[0].node.metadata["triples"]}
    assert triples and triples <= set(movie_triples)


async def test_async_sub_retrieval(movie_triples, embedder, tmp_path: Path) -> None:
    sub = GRetrieverPGRetriever(make_store(movie_triples), embedder=embedder, cache_dir=tmp_path)
    nodes = await sub.aretrieve("who directed Giant")
    assert nodes[0].node.text.startswith("node_id,node_attr")


def test_refresh_sees_new_triplets_and_reuses_cached_vectors(
    movie_triples, embedder, tmp_path: Path
) -> None:
    store = make_store(movie_triples)
    sub = GRetrieverPGRetriever(store, embedder=embedder, cache_dir=tmp_path)
    sub.retrieve("who directed Giant")
    first_graph = sub.gretriever.index.graph  # type: ignore[union-attr]
    store.upsert_nodes([EntityNode(name="Western"), EntityNode(name="Shane")])
    store.upsert_relations([Relation(label="has_genre", source_id="Shane", target_id="Western")])
    sub.refresh()
    sub.retrieve("who directed Giant")
    assert sub.gretriever.index.graph.num_edges == first_graph.num_edges + 1  # type: ignore[union-attr]
    embedder.embedded.clear()
    GRetrieverPGRetriever(store, embedder=embedder, cache_dir=tmp_path).retrieve("anything")
    assert embedder.embedded == ["anything"]  # the graph came from the cache


def test_empty_store_is_reported(embedder) -> None:
    sub = GRetrieverPGRetriever(SimplePropertyGraphStore(), embedder=embedder, cache_dir=None)
    with pytest.raises(EmptyGraphError):
        sub.retrieve("anything")


def test_lazy_by_default_embeds_only_the_question_region(
    movie_triples, embedder, tmp_path: Path
) -> None:
    extra = [(f"Film {i}", "directed_by", f"Director {i}") for i in range(30)]
    store = make_store(list(movie_triples) + extra)
    small = RegionSettings(hops=1, whole_graph_max_nodes=4)
    sub = GRetrieverPGRetriever(store, embedder=embedder, cache_dir=tmp_path, region=small)
    nodes = sub.retrieve("who directed [Giant]")
    assert nodes and nodes[0].node.metadata["triples"]
    assert sub.gretriever.index is None
    assert not any("Film 7" in text or "Director 7" in text for text in embedder.embedded)


def test_eager_build_index_embeds_everything(movie_triples, embedder, tmp_path: Path) -> None:
    sub = GRetrieverPGRetriever(make_store(movie_triples), embedder=embedder, cache_dir=tmp_path)
    assert sub.build_index(progress=False) is sub
    assert sub.gretriever.index is not None
    assert sub.gretriever.index.graph.num_edges == len(set(movie_triples))


def _store_with_chunks(movie_triples) -> SimplePropertyGraphStore:  # type: ignore[no-untyped-def]
    store = SimplePropertyGraphStore()
    chunk = ChunkNode(text="Giant is a 1956 film by George Stevens.", id_="chunk-giant")
    nodes = {
        n: EntityNode(name=n, label="entity", properties={"triplet_source_id": chunk.id_})
        for t in movie_triples
        for n in (t[0], t[2])
    }
    store.upsert_nodes([chunk, *nodes.values()])
    store.upsert_relations(
        [
            Relation(label=r, source_id=nodes[h].id, target_id=nodes[t].id)
            for h, r, t in movie_triples
        ]
    )
    return store


@pytest.mark.parametrize("include_text", [True, False])
def test_include_text_appends_the_source_chunks(
    movie_triples, embedder, tmp_path: Path, include_text: bool
) -> None:
    store = _store_with_chunks(movie_triples)
    sub = GRetrieverPGRetriever(
        store, embedder=embedder, cache_dir=tmp_path, include_text=include_text
    )
    text = sub.retrieve("who directed [Giant]")[0].node.get_content()
    assert ("Giant is a 1956 film by George Stevens." in text) is include_text
    retriever = GRetrieverRetriever.from_graph(
        store, embedder=embedder, cache_dir=tmp_path, include_text=include_text
    )
    node = retriever.retrieve("who directed [Giant]")[0].node
    assert ("Giant is a 1956 film by George Stevens." in node.get_content()) is include_text
    assert ("source_node_ids" in node.metadata) is include_text


def test_include_text_without_a_property_graph_is_refused(movie_triples, embedder) -> None:
    with pytest.raises(ConfigurationError, match="PropertyGraphStore"):
        GRetrieverRetriever.from_triples(
            movie_triples, embedder=embedder, cache_dir=None, include_text=True
        )


def test_the_default_plans_the_question_path_and_the_paper_preset_does_not(tmp_path: Path) -> None:
    from tests.support.fake_embedder import FakeEmbedder
    from tests.support.many_answers import DIRECTORS, QUESTION, TRIPLES

    region = RegionSettings(whole_graph_max_nodes=2, hops=1)  # one hop: no director
    found = {}
    for preset in (None, "paper"):
        sub = GRetrieverPGRetriever(
            make_store(TRIPLES), embedder=FakeEmbedder(dim=32), region=region,
            cache_dir=tmp_path / str(preset), entity_extractor=lambda q: ["Jane Seymour"],
            preset=preset,
        )  # fmt: skip
        found[preset] = set(sub.retrieve(QUESTION)[0].node.metadata["nodes"])
    assert set(DIRECTORS) <= found[None]
    assert not set(DIRECTORS) & found["paper"]
    with pytest.raises(ConfigurationError, match="presets: 'paper'"):
        GRetrieverPGRetriever(make_store(TRIPLES), preset="papr")
