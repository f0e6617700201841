"""LlamaIndex: GRetrieverRetriever -> GraphPromptSynthesizer (graph token) in a query engine."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
from llama_index.core.query_engine import RetrieverQueryEngine

from kgcore.gretriever.gnn import GNNConfig, GraphPromptConfig, GraphPromptModel
from kgcore.gretriever.gnn.graph_data import VectorLookup
from kgcore.gretriever.gnn.labels import UNPARSEABLE, parse_label
from llamaindex_gretriever import (
    GraphPromptSynthesizer,
    GRetrieverRetriever,
    graph_prompt_query_engine,
)
from llamaindex_gretriever.gnn import node_to_prompt
from tests.support.fake_embedder import FakeEmbedder

pytestmark = pytest.mark.slow
DIM = 16
LABELS = ("support", "counter")


def test_query_engine_answers_with_the_graph_token() -> None:
    triples = [("cannabis", "synonym of", "marijuana"), ("marijuana", "capable of", "good thing")]
    embedder = FakeEmbedder(DIM)
    retriever = GRetrieverRetriever.from_triples(triples, embedder, cache_dir=None, progress=False)
    config = GraphPromptConfig(
        mode="prompt", gnn=GNNConfig.preset("tiny"), input_dim=DIM, max_new_tokens=3
    )
    model = GraphPromptModel(config)
    synthesizer = GraphPromptSynthesizer(model, retriever, labels=LABELS)
    engine = RetrieverQueryEngine(retriever=retriever, response_synthesizer=synthesizer)
    question = "is marijuana a good thing: support or counter?"
    response = engine.query(question)
    assert response.metadata["graph_token"] is True
    assert response.source_nodes and response.source_nodes[0].node.metadata["triples"]

    node = retriever.retrieve(question)[0]
    prompt = node_to_prompt(node, question, VectorLookup(FakeEmbedder(DIM)))
    # The GNN reads one row per node of the subgraph: the node's embedding.
    nodes = node.node.metadata["nodes"]
    assert prompt.data is not None and prompt.data.num_nodes == len(nodes)
    np.testing.assert_allclose(prompt.data.x.numpy(), embedder.embed(nodes), rtol=1e-6)
    # The answer is the model's reply to that graph prompt, read as a label when it names one.
    reply = model.generate([prompt])[0]
    assert response.metadata["reply"] == reply
    label = parse_label(reply, LABELS)
    assert str(response) == (label if label != UNPARSEABLE else reply.strip())
    # The graph token reaches the frozen LLM: other node features, another loss of an answer.
    other = prompt.data.clone()
    other.x = torch.flip(other.x, dims=[1])
    with torch.no_grad():
        losses = [
            float(model.loss([p], ["support"])) for p in (prompt, replace(prompt, data=other))
        ]
    assert abs(losses[0] - losses[1]) > 1e-4, losses
    # The helper builds the same engine.
    assert isinstance(graph_prompt_query_engine(retriever, model), RetrieverQueryEngine)


def test_synthesizer_needs_embeddings() -> None:
    model = GraphPromptModel(GraphPromptConfig(mode="inference", input_dim=DIM, max_new_tokens=2))
    with pytest.raises(ValueError, match="embedder"):
        GraphPromptSynthesizer(model)
