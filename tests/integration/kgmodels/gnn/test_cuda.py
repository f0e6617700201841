"""The graph prompt's CUDA path on the real SmolLM2-135M: runs only where a GPU is present.

Where ``torch.cuda.is_available()`` is false (this project's CPU machines and CI) every test here
is skipped; on a GPU machine with the ``gnn`` extra and a CUDA torch installed
(``docs/gretriever.md``) it trains, saves, reloads and generates on the GPU.
"""

from __future__ import annotations

import pytest
import torch

from kgcore.gretriever.gnn import (
    GNNConfig,
    GraphPrompt,
    GraphPromptConfig,
    GraphPromptModel,
    load_model,
    textual_graph_to_data,
)
from kgcore.gretriever.textgraph import TextualGraph
from kgmodels.gnn.explagraphs import LabelledPrompt
from kgmodels.gnn.training import BEST_FILE, TrainConfig, Trainer
from tests.support.fake_embedder import FakeEmbedder

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]

DIM = 16


def _examples() -> list[LabelledPrompt]:
    embedder = FakeEmbedder(dim=DIM)
    rows = [
        ([("Heat", "directed_by", "Michael Mann"), ("Heat", "release_year", "1995")], "yes"),
        ([("Alien", "has_genre", "Horror"), ("Alien", "release_year", "1979")], "no"),
    ]
    out = []
    for number, (triples, label) in enumerate(rows):
        graph = TextualGraph.from_triples(triples)
        prompt = GraphPrompt(
            "Does the graph say who directed it?", "", textual_graph_to_data(graph, embedder)
        )
        out.append(LabelledPrompt(f"c{number}", prompt, label))
    return out


def _autocast_dtype(model: GraphPromptModel) -> torch.dtype | None:
    context = model.inner.llm.autocast_context
    return context.fast_dtype if isinstance(context, torch.amp.autocast) else None


def _model(mode: str, kind: str) -> GraphPromptModel:
    """A graph-prompt model on the 135M LLM with a tiny GNN of ``kind``."""
    config = GraphPromptConfig(
        mode=mode,
        gnn=GNNConfig.preset("tiny", kind=kind),
        input_dim=DIM,
        max_text_tokens=16,
        max_new_tokens=3,
        system_prompt="Answer yes or no.",
    )
    return GraphPromptModel(config)


def test_cuda_prompt_mode_keeps_the_frozen_llm_in_bf16() -> None:
    model = _model("prompt", "gat")
    assert model.device.type == "cuda"
    assert {p.dtype for p in model.inner.llm.llm.parameters()} == {torch.bfloat16}
    assert not any(p.requires_grad for p in model.inner.llm.llm.parameters())
    assert _autocast_dtype(model) == torch.bfloat16
    replies = model.generate([e.prompt for e in _examples()])
    assert len(replies) == 2 and all(isinstance(r, str) for r in replies)


@pytest.mark.parametrize("kind", ["gat", "graph-transformer"])
def test_cuda_training_step_checkpoint_and_generation(kind: str, tmp_path) -> None:
    model = _model("lora", kind)
    assert model.device.type == "cuda"
    assert all(p.device.type == "cuda" for p in model.inner.gnn.parameters())
    # PyG's GRetriever prepares a LoRA model with PEFT's prepare_model_for_kbit_training, which
    # upcasts the frozen base weights to float32; the forward pass runs under bf16 autocast.
    assert {p.dtype for p in model.inner.llm.llm.parameters()} == {torch.float32}
    assert _autocast_dtype(model) == torch.bfloat16
    peft = model.inner.llm_generator.peft_config["default"]
    assert (peft.r, peft.lora_alpha) == (8, 16)
    examples = _examples()
    before = model.llm_state()
    train = TrainConfig(
        epochs=1, lr=1e-3, batch_size=2, grad_accumulation=1, warmup_ratio=0.0, progress=False
    )
    state = Trainer(model, examples, examples, tmp_path, train).run()
    assert state.optimizer_steps == 1 and all(loss == loss for loss in state.losses)
    after = model.llm_state()
    assert all(torch.equal(before[n], after[n]) for n in before)
    replies = model.generate([e.prompt for e in examples])
    assert len(replies) == 2 and all(isinstance(r, str) for r in replies)
    reloaded = load_model(tmp_path / BEST_FILE)
    assert reloaded.device.type == "cuda"
    assert reloaded.generate([e.prompt for e in examples]) == replies
