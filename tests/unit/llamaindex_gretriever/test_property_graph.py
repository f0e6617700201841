from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core import PropertyGraphIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.graph_stores import SimplePropertyGraphStore
from llama_index.core.graph_stores.types import ChunkNode, EntityNode, Relation
from llama_index.core.llms import MockLLM

from kgcore.exceptions import EmptyGraphError
from kgcore.types import Triple
from llamaindex_gretriever import GRetrieverPGRetriever, read_property_graph


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
    assert sub.gretriever.index.graph.num_edges == first_graph.num_edges + 1  # type: ignore[union-attr]
    embedder.embedded.clear()
    GRetrieverPGRetriever(store, embedder=embedder, cache_dir=tmp_path).retrieve("anything")
    assert embedder.embedded == ["anything"]  # the graph came from the cache


def test_empty_store_is_reported(embedder) -> None:
    sub = GRetrieverPGRetriever(SimplePropertyGraphStore(), embedder=embedder, cache_dir=None)
    with pytest.raises(EmptyGraphError):
        sub.retrieve("anything")
