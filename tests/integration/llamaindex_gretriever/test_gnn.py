"""LlamaIndex: GRetrieverRetriever -> GraphPromptSynthesizer (graph token) in a query engine."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from llama_index.core.query_engine import RetrieverQueryEngine

from kgcore.gretriever.gnn import GNNConfig, GraphPromptConfig, GraphPromptModel
from kgcore.gretriever.gnn.graph_data import VectorLookup
from llamaindex_gretriever import (
    GraphPromptSynthesizer,
    GRetrieverRetriever,
    graph_prompt_query_engine,
)
from llamaindex_gretriever.gnn import node_to_prompt

pytestmark = pytest.mark.slow
DIM = 16


class HashEmbedder:
    model_id = "hash-16"

    def embed(self, texts, progress=False):
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).normal(size=DIM)
            rows.append(vector / np.linalg.norm(vector))
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), DIM)


def test_query_engine_answers_with_the_graph_token() -> None:
    triples = [("cannabis", "synonym of", "marijuana"), ("marijuana", "capable of", "good thing")]
    retriever = GRetrieverRetriever.from_triples(
        triples, HashEmbedder(), cache_dir=None, progress=False
    )
    config = GraphPromptConfig(
        mode="prompt", gnn=GNNConfig.preset("tiny"), input_dim=DIM, max_new_tokens=3
    )
    model = GraphPromptModel(config)
    synthesizer = GraphPromptSynthesizer(model, retriever, labels=("support", "counter"))
    engine = RetrieverQueryEngine(retriever=retriever, response_synthesizer=synthesizer)
    question = "is marijuana a good thing: support or counter?"
    response = engine.query(question)
    assert response.metadata["graph_token"] is True
    assert response.source_nodes and response.source_nodes[0].node.metadata["triples"]

    node = retriever.retrieve(question)[0]
    prompt = node_to_prompt(node, question, VectorLookup(HashEmbedder()))
    assert prompt.data is not None and prompt.data.num_nodes == len(node.node.metadata["nodes"])
    reply = model.generate([prompt])[0]
    assert response.metadata["reply"] == reply
    assert str(response) in {"support", "counter", reply.strip()}
    # The helper builds the same engine.
    assert isinstance(graph_prompt_query_engine(retriever, model), RetrieverQueryEngine)


def test_synthesizer_needs_embeddings() -> None:
    model = GraphPromptModel(GraphPromptConfig(mode="inference", input_dim=DIM, max_new_tokens=2))
    with pytest.raises(ValueError, match="embedder"):
        GraphPromptSynthesizer(model)
