"""Graph-prompt pieces that need no LLM: configs, encoders, Data conversion, parsing, CLI."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from kgcore.exceptions import ConfigurationError, EmbeddingError
from kgcore.gretriever import GRetriever, PCSTSettings
from kgcore.gretriever.gnn import (
    GNN_KINDS,
    MODES,
    GNNConfig,
    GraphPromptConfig,
    build_gnn,
    graph_text,
    parse_label,
    read_checkpoint_config,
    result_to_data,
    textual_graph_to_data,
)
from kgcore.gretriever.textgraph import TextualGraph
from tests.support.fake_embedder import FakeEmbedder


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("support", "support"),
        ("  Counter.", "counter"),
        ("The arguments counter each other; they do not support", "counter"),
        ("supports", "support"),
        ("1. 1. 2.", "unparseable"),
        ("", "unparseable"),
        (None, "unparseable"),
        (42, "unparseable"),
        ("x" * 1000 + " support", "unparseable"),  # beyond the characters read
    ],
)
def test_parse_label_is_total(reply: object, expected: str) -> None:
    assert parse_label(reply) == expected


def test_gnn_config_presets_and_errors() -> None:
    paper = GNNConfig()
    assert (paper.num_layers, paper.heads, paper.hidden_channels) == (4, 4, 1024)
    assert GNNConfig.preset("cpu").hidden_channels == 256
    with pytest.raises(ConfigurationError, match="divisible"):
        GNNConfig(hidden_channels=30, heads=4)
    with pytest.raises(ConfigurationError, match="unknown GNN"):
        GNNConfig(kind="gcn")
    with pytest.raises(ConfigurationError, match="preset"):
        GNNConfig.preset("huge")


@pytest.mark.parametrize("kind", GNN_KINDS)
def test_encoders_read_edge_features(kind: str) -> None:
    torch.manual_seed(0)
    gnn = build_gnn(GNNConfig(kind=kind, num_layers=2, heads=2, hidden_channels=8), 4)
    assert gnn.out_channels == 8
    x = torch.randn(3, 4)
    edge_index = torch.tensor([[0, 1], [1, 2]])
    first = gnn(x, edge_index, edge_attr=torch.zeros(2, 4))
    second = gnn(x, edge_index, edge_attr=torch.ones(2, 4))
    assert first.shape == (3, 8)
    assert not torch.allclose(first, second)  # edge features change the encoding


def test_graph_prompt_config_round_trip_and_errors() -> None:
    config = GraphPromptConfig(mode="lora", gnn=GNNConfig.preset("tiny", kind="graph-transformer"))
    assert GraphPromptConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ConfigurationError, match="unknown GraphPromptConfig fields"):
        GraphPromptConfig.from_dict({"mode": "prompt", "learning": 1})
    with pytest.raises(ConfigurationError, match="unknown mode"):
        GraphPromptConfig(mode="finetune")
    with pytest.raises(ConfigurationError, match="max_text_tokens"):
        GraphPromptConfig(max_text_tokens=0)


def test_textual_graph_to_data_uses_the_embeddings() -> None:
    embedder = FakeEmbedder(dim=6)
    graph = TextualGraph.from_triples([("cannabis", "synonym of", "marijuana"), ("b", "r", "c")])
    data = textual_graph_to_data(graph, embedder)
    assert data.edge_index.tolist() == [[0, 2], [1, 3]]
    assert np.allclose(data.x[1].numpy(), embedder.embed(["marijuana"])[0])
    assert np.allclose(data.edge_attr[0].numpy(), embedder.embed(["synonym of"])[0])
    assert graph_text(graph).splitlines()[:3] == ["node_id,node_attr", "0,cannabis", "1,marijuana"]


def test_result_to_data_renumbers_the_retrieved_nodes() -> None:
    embedder = FakeEmbedder(dim=6)
    triples = [("a", "r", "b"), ("b", "s", "c"), ("x", "t", "y")]
    retriever = GRetriever.from_triples(
        triples, embedder, cache_dir=None, progress=False, pcst=PCSTSettings(k_nodes=2, k_edges=1)
    )
    result = retriever.retrieve("b")
    data = result_to_data(result, index=retriever.index)
    assert data.num_nodes == result.num_nodes
    assert data.edge_index.shape[1] == result.num_edges
    if result.num_edges:
        assert int(data.edge_index.max()) < result.num_nodes
    for row, text in enumerate(result.node_texts):
        assert np.allclose(data.x[row].numpy(), embedder.embed([text])[0])
    with pytest.raises(EmbeddingError, match="no embedder"):
        result_to_data(result)


def test_cli_choices_match_the_core() -> None:
    import kgqa.gretriever as cli

    assert cli.MODES == MODES
    assert cli.GNN_KINDS == GNN_KINDS


def test_read_checkpoint_config_rejects_other_files(tmp_path) -> None:
    with pytest.raises(ConfigurationError, match="not found"):
        read_checkpoint_config(tmp_path / "missing.safetensors")
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(ConfigurationError, match="not a safetensors checkpoint"):
        read_checkpoint_config(bad)


def test_registry_knows_gretriever_gnn_and_needs_a_checkpoint(movie_store) -> None:
    from kgeval.registry import make_method, method_names

    assert "gretriever-gnn" in method_names()
    with pytest.raises(ConfigurationError, match="checkpoint"):
        make_method("gretriever-gnn", movie_store)


class RecordingModel:
    """Stands in for a GraphPromptModel: records its prompts, replies from a script."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.prompts: list = []

    def generate(self, prompts):
        self.prompts.extend(prompts)
        return [self.reply for _ in prompts]


@pytest.mark.parametrize(
    ("reply", "answer"), [("Counter, clearly", "counter"), ("no idea", "no idea")]
)
def test_engine_answers_from_the_graph_prompt_without_the_chat_model(
    movie_store, reply: str, answer: str
) -> None:
    from kgcore.llm import ScriptedLLM
    from kgcore.methods.gretriever.gnn import GRetrieverGNNQA

    model = RecordingModel(reply)
    engine = GRetrieverGNNQA(movie_store, model=model, embedder=FakeEmbedder(dim=6))
    result = engine.run("who directed [Cleopatra]", ScriptedLLM([]), ["Cleopatra"])
    assert result.answer == answer and result.llm_calls == 1
    (prompt,) = model.prompts
    assert prompt.question == "who directed [Cleopatra]"
    assert prompt.text == result.context and prompt.text.startswith("node_id,node_attr")
    assert prompt.data.num_nodes == result.extra["nodes"]
    assert prompt.data.x.shape[1] == 6
