"""The text-only condition: the LLM gets the text prompt and no graph token (no LLM loaded)."""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from kgcore.gretriever.gnn import (
    GNNConfig,
    GraphPrompt,
    GraphPromptConfig,
    GraphPromptModel,
    textual_graph_to_data,
)
from kgcore.gretriever.textgraph import TextualGraph
from kgmodels.gnn.explagraphs import LabelledPrompt
from kgmodels.gnn.training import TrainConfig, evaluate_accuracy, parameter_groups
from tests.support.fake_embedder import FakeEmbedder

DIM = 8


class _Tokenizer:
    bos_token_id, eos_token_id = 1, 2

    def __call__(self, text: str, add_special_tokens: bool = False) -> Any:
        return type("Ids", (), {"input_ids": text.split()})()

    def decode(self, ids: list[str]) -> str:
        return " ".join(ids)

    def batch_decode(self, outputs: Any, skip_special_tokens: bool = True) -> list[str]:
        return ["counter"] * len(outputs)


class _LLM:
    """Records what PyG's ``LLM._get_embeds`` is given."""

    def __init__(self) -> None:
        self.tokenizer = _Tokenizer()
        self.autocast_context = contextlib.nullcontext()
        self.calls: list[dict[str, Any]] = []

    def _get_embeds(self, question: list[str], context: Any, embedding: Any) -> tuple:
        self.calls.append({"question": question, "context": context, "embedding": embedding})
        return torch.zeros(len(question), 3, 4), torch.ones(len(question), 3), None


class _Generator:
    def generate(self, **kwargs: Any) -> list[list[int]]:
        return [[0]] * kwargs["inputs_embeds"].shape[0]


class _Inner(torch.nn.Module):
    """Stands for PyG's ``GRetriever``: its graph path is recorded, never the text-only one."""

    def __init__(self) -> None:
        super().__init__()
        self.llm = _LLM()
        self.llm_generator = _Generator()
        self.graph_calls: list[dict[str, Any]] = []
        self.projector = torch.nn.Linear(4, 4)
        self.gnn = torch.nn.Linear(4, 4)

    def inference(self, **inputs: Any) -> list[str]:
        self.graph_calls.append(inputs)
        return ["support"] * len(inputs["question"])


def _model() -> GraphPromptModel:
    model = GraphPromptModel.__new__(GraphPromptModel)
    torch.nn.Module.__init__(model)
    model.config = GraphPromptConfig(
        mode="prompt", gnn=GNNConfig.preset("tiny"), input_dim=DIM, max_text_tokens=3
    )
    model.inner = _Inner()
    model.tokenizer = model.inner.llm.tokenizer
    model.device = torch.device("cpu")
    return model


def _examples() -> list[LabelledPrompt]:
    embedder = FakeEmbedder(dim=DIM)
    graph = TextualGraph.from_triples([("zoo", "not capable of", "freedom")])
    data = textual_graph_to_data(graph, embedder)
    text = "node_id,node_attr 0,zoo 1,freedom 2,cage"
    return [
        LabelledPrompt(f"e{n}", GraphPrompt(f"question {n}", text, data), "counter")
        for n in range(3)
    ]


def test_text_only_generation_gives_the_llm_no_graph_embedding() -> None:
    model = _model()
    prompts = [e.prompt for e in _examples()]
    assert model.generate(prompts, graph_token=False) == ["counter"] * 3
    assert model.inner.graph_calls == []  # the GNN path (and its soft token) never ran
    (call,) = model.inner.llm.calls
    assert call["embedding"] is None
    assert call["question"] == ["question 0", "question 1", "question 2"]
    assert call["context"] == ["node_id,node_attr 0,zoo 1,freedom"] * 3  # cut to 3 tokens
    # With the token: the graph path, with the graphs' nodes.
    assert model.generate(prompts) == ["support"] * 3
    assert len(model.inner.graph_calls) == 1 and model.inner.graph_calls[0]["x"].shape[0] == 6
    assert len(model.inner.llm.calls) == 1


def test_evaluate_accuracy_passes_the_condition_to_generation() -> None:
    model = _model()
    examples = _examples()
    assert evaluate_accuracy(model, examples, graph_token=False).accuracy == 1.0
    assert evaluate_accuracy(model, examples).accuracy == 0.0
    assert len(model.inner.graph_calls) == 1 and len(model.inner.llm.calls) == 1


def test_projector_learning_rate_is_its_own_group() -> None:
    model = _model()
    (single,) = parameter_groups(model, TrainConfig(lr=1e-4))
    assert single["lr"] == 1e-4 and len(single["params"]) == 4
    projector, rest = parameter_groups(model, TrainConfig(lr=1e-4, projector_lr=1e-3))
    assert projector["lr"] == 1e-3 and rest["lr"] == 1e-4
    assert {id(p) for p in projector["params"]} == {
        id(p) for p in model.inner.projector.parameters()
    }
    assert "projector_lr" not in TrainConfig().to_dict()  # older runs still resume
    assert TrainConfig(projector_lr=1e-3).to_dict()["projector_lr"] == 1e-3
