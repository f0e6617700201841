"""What LlamaIndex users expect: lazy embedding, build_index, LlamaIndex names, the graph-QA
prompt, graph objects they already have, link provenance."""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.graph_stores.simple_labelled import SimplePropertyGraphStore
from llama_index.core.graph_stores.types import EntityNode, Relation
from llama_index.core.llms import MockLLM

from kgcore.exceptions import ConfigurationError
from kgcore.gretriever import RegionSettings
from llamaindex_gretriever import GRetrieverRetriever, graph_query_engine
from llamaindex_gretriever.prompts import GRAPH_QA_PROMPT

MANY = [(f"film {i}", "release_year", f"year {i}") for i in range(50)]


def test_from_triples_embeds_only_the_question_region(movie_triples, embedder, tmp_path: Path):
    retriever = GRetrieverRetriever.from_triples(
        movie_triples + MANY,
        embedder,
        cache_dir=tmp_path,
        region=RegionSettings(whole_graph_max_nodes=10),
        path_depth=1,
    )
    node = retriever.retrieve("who directed [Giant]")[0].node
    assert "Giant" in node.metadata["nodes"] and retriever.hops == 1
    assert not any(t.startswith("film ") for t in embedder.embedded)
    assert node.metadata["entity_links"] == [
        {"mention": "Giant", "node": "Giant", "method": "exact", "score": 100.0}
    ]
    # no brackets: the node name the question writes is linked, still lazily (issue 39)
    plain = retriever.retrieve("who directed Giant")[0].node
    assert plain.metadata["nodes"] == node.metadata["nodes"]
    assert plain.metadata["entity_links"] == node.metadata["entity_links"]
    assert not any(t.startswith("film ") for t in embedder.embedded)
    retriever.build_index(progress=False)
    assert "film 3" in embedder.embedded
    assert retriever.retrieve("who directed Giant")[0].node.metadata["nodes"]


def test_llamaindex_names_embed_model_and_similarity_top_k(movie_triples, tmp_path: Path):
    retriever = GRetrieverRetriever.from_triples(
        movie_triples,
        cache_dir=tmp_path,
        embed_model=MockEmbedding(embed_dim=8),
        similarity_top_k=1,
    )
    assert retriever.gretriever.pcst.k_nodes == 1
    assert retriever.gretriever.embedder.model_id == "llamaindex:MockEmbedding:unknown"
    assert retriever.retrieve("who directed [Cleopatra]")[0].node.metadata["nodes"]
    with pytest.raises(ConfigurationError, match="not both"):
        GRetrieverRetriever.from_triples(movie_triples, hops=1, path_depth=2, cache_dir=None)
    with pytest.raises(ConfigurationError, match="BaseEmbedding"):
        GRetrieverRetriever.from_triples(movie_triples, embed_model="minilm", cache_dir=None)
    with pytest.raises(TypeError, match="similarity_topk"):
        GRetrieverRetriever.from_triples(movie_triples, similarity_topk=2)  # type: ignore[call-arg]


def test_a_property_graph_store_is_accepted(embedder, tmp_path: Path) -> None:
    store = SimplePropertyGraphStore()
    carmen, actor = EntityNode(name="Carmen", label="film"), EntityNode(name="Ruggero Raimondi")
    store.upsert_nodes([carmen, actor])
    store.upsert_relations(
        [Relation(label="starred_actors", source_id=carmen.id, target_id=actor.id)]
    )
    retriever = GRetrieverRetriever.from_graph(
        store, embedder, cache_dir=tmp_path, text_format="triples"
    )
    text = retriever.retrieve("[Ruggero Raimondi] appears in which movies")[0].node.text
    assert text == "(Carmen, starred actors, Ruggero Raimondi)"


def test_the_query_engine_helper_uses_the_graph_prompt(movie_triples, embedder, tmp_path):
    retriever = GRetrieverRetriever.from_triples(
        movie_triples, embedder, cache_dir=tmp_path, text_format="triples"
    )
    engine = graph_query_engine(retriever, llm=MockLLM())
    prompt = engine.get_prompts()["response_synthesizer:text_qa_template"]
    assert prompt.get_template() == GRAPH_QA_PROMPT.get_template()
    response = engine.query("who directed [Cleopatra]")
    assert "(Cleopatra, directed by, Joseph L. Mankiewicz)" in str(response)  # MockLLM echoes
    assert "Answer questions from knowledge-graph facts" in str(response)
