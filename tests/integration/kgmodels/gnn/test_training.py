"""A tiny graph prompt on the real SmolLM2-135M: training steps, frozen LLM, checkpoints."""

from __future__ import annotations

import json
from dataclasses import replace

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
from kgcore.gretriever.gnn.graph_data import graph_text
from kgcore.gretriever.textgraph import TextualGraph
from kgmodels.gnn.explagraphs import LabelledPrompt
from kgmodels.gnn.training import BEST_FILE, STATE_FILE, TrainConfig, Trainer
from tests.support.fake_embedder import FakeEmbedder

pytestmark = pytest.mark.slow

DIM = 16
GRAPHS = [
    (
        [("cannabis", "synonym of", "marijuana"), ("marijuana", "capable of", "good thing")],
        "support",
    ),
    ([("women", "capable of", "combat"), ("combat", "not desires", "women")], "counter"),
    ([("vote", "causes", "turnout"), ("turnout", "part of", "democracy")], "support"),
    ([("zoo", "not capable of", "freedom"), ("animals", "desires", "freedom")], "counter"),
]


def tiny_config(mode: str = "prompt") -> GraphPromptConfig:
    return GraphPromptConfig(
        mode=mode,
        gnn=GNNConfig.preset("tiny"),
        input_dim=DIM,
        max_text_tokens=48,
        max_new_tokens=3,
        system_prompt="Answer support or counter.",
    )


@pytest.fixture(scope="module")
def examples() -> list[LabelledPrompt]:
    embedder = FakeEmbedder(dim=DIM)
    out = []
    for number, (triples, label) in enumerate(GRAPHS):
        graph = TextualGraph.from_triples(triples)
        prompt = GraphPrompt(
            "Support or counter?", graph_text(graph), textual_graph_to_data(graph, embedder)
        )
        out.append(LabelledPrompt(f"g{number}", prompt, label))
    return out


def test_prompt_tuning_lowers_the_loss_and_leaves_the_llm_alone(examples) -> None:
    model = GraphPromptModel(tiny_config())
    trainable = model.trainable_state()
    assert trainable and all(n.startswith(("gnn.", "projector.")) for n in trainable)
    before = model.llm_state()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    prompts, labels = [e.prompt for e in examples], [e.label for e in examples]
    losses = []
    for _ in range(6):
        loss = model.loss(prompts, labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    assert losses[-1] < losses[0] - 0.5, losses
    after = model.llm_state()
    assert before.keys() == after.keys()
    assert all(torch.equal(before[name], after[name]) for name in before)
    changed = model.trainable_state()
    assert any(not torch.equal(trainable[n], changed[n]) for n in trainable)


def test_trainer_checkpoint_reloads_to_identical_outputs(examples, tmp_path) -> None:
    model = GraphPromptModel(tiny_config())
    config = TrainConfig(
        epochs=1, lr=1e-3, batch_size=2, grad_accumulation=1, warmup_ratio=0.0, progress=False
    )
    state = Trainer(model, examples, examples[:2], tmp_path, config).run()
    assert state.finished and state.optimizer_steps == 2 and len(state.losses) == 2
    saved = json.loads((tmp_path / STATE_FILE).read_text())
    assert saved["state"]["history"][0]["epoch"] == 1
    # A finished run resumes to a no-op.
    again = Trainer(GraphPromptModel(tiny_config()), examples, examples[:2], tmp_path, config)
    assert again.run().optimizer_steps == 2

    reloaded = load_model(tmp_path / BEST_FILE)
    original, restored = model.trainable_state(), reloaded.trainable_state()
    assert original.keys() == restored.keys()
    assert all(torch.equal(original[n], restored[n]) for n in original)
    prompts = [e.prompt for e in examples[:2]]
    with torch.no_grad():
        assert float(model.loss(prompts, ["support", "counter"])) == pytest.approx(
            float(reloaded.loss(prompts, ["support", "counter"])), abs=1e-6
        )
    assert model.generate(prompts) == reloaded.generate(prompts)


def test_lora_trains_adapters_only(examples) -> None:
    model = GraphPromptModel(tiny_config("lora"))
    names = list(model.trainable_state())
    assert any("lora_" in n for n in names) and any(n.startswith("gnn.") for n in names)
    before = model.llm_state()
    loss = model.loss([examples[0].prompt], [examples[0].label])
    loss.backward()
    torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1).step()
    after = model.llm_state()
    assert all(torch.equal(before[n], after[n]) for n in before)


def test_inference_mode_has_nothing_to_train(examples, tmp_path) -> None:
    from kgcore.exceptions import ConfigurationError

    model = GraphPromptModel(tiny_config("inference"))
    assert model.num_trainable() == 0
    # No GNN: the LLM reads the text and the question only, the graph's Data is not used ...
    prompt = examples[0].prompt
    without_graph = replace(prompt, data=None)
    assert model.generate([prompt]) == model.generate([without_graph])
    with torch.no_grad():
        loss = float(model.loss([prompt], ["support"]))
        assert loss == float(model.loss([without_graph], ["support"]))
        # ... but the text is: another graph's text, another loss.
        assert loss != pytest.approx(float(model.loss([examples[1].prompt], ["support"])))
    with pytest.raises(ConfigurationError, match="nothing to train"):
        Trainer(model, examples, examples, tmp_path)


def test_graph_norm_statistics_travel_with_the_checkpoint(examples, tmp_path) -> None:
    config = replace(tiny_config(), graph_norm=True)
    model = GraphPromptModel(config)
    state = model.trainable_state()
    assert "projector.0.running_mean" in state and "projector.0.weight" in state
    prompts, labels = [e.prompt for e in examples], [e.label for e in examples]
    model.train()
    model.loss(prompts, labels).backward()  # a training pass moves the running statistics
    moved = model.trainable_state()["projector.0.running_mean"]
    assert not torch.equal(moved, state["projector.0.running_mean"])
    model.save(tmp_path / "norm.safetensors")
    reloaded = load_model(tmp_path / "norm.safetensors")
    assert reloaded.config.graph_norm
    assert torch.equal(reloaded.trainable_state()["projector.0.running_mean"], moved)
    model.eval()
    with torch.no_grad():
        assert float(model.loss(prompts, labels)) == pytest.approx(
            float(reloaded.eval().loss(prompts, labels)), abs=1e-6
        )
    # A lone graph in training uses the running statistics instead of failing.
    model.train()
    assert torch.isfinite(model.loss(prompts[:1], labels[:1]))


class _Interrupted(Exception):
    pass


class _StopAfterSnapshot(Trainer):
    """A trainer whose process 'dies' right after its snapshot at optimiser step 2."""

    def _snapshot(self) -> None:
        super()._snapshot()
        if self.state.optimizer_steps == 2:
            raise _Interrupted


def test_an_interrupted_run_resumes_from_its_snapshot(examples, tmp_path) -> None:
    config = TrainConfig(
        epochs=1,
        lr=1e-3,
        batch_size=1,
        grad_accumulation=1,
        warmup_ratio=0.0,
        save_every=2,
        balance=True,
        progress=False,
    )
    whole = Trainer(GraphPromptModel(tiny_config()), examples, examples[:2], tmp_path / "a", config)
    whole.run()
    with pytest.raises(_Interrupted):
        _StopAfterSnapshot(
            GraphPromptModel(tiny_config()), examples, examples[:2], tmp_path / "b", config
        ).run()
    saved = json.loads((tmp_path / "b" / STATE_FILE).read_text())["state"]
    assert (saved["optimizer_steps"], saved["batches_done"], saved["finished"]) == (2, 2, False)
    resumed = Trainer(
        GraphPromptModel(tiny_config()), examples, examples[:2], tmp_path / "b", config
    )
    state = resumed.run()
    assert state.finished and state.optimizer_steps == whole.state.optimizer_steps == 4
    assert state.losses == whole.state.losses
    first, second = whole.model.trainable_state(), resumed.model.trainable_state()
    assert all(torch.allclose(first[n], second[n], atol=1e-6) for n in first)


def test_text_only_replies_are_the_inference_only_model_s(examples) -> None:
    """Without the graph token a prompt-tuning model's frozen LLM answers as inference-only
    G-Retriever does with the same text prompt; with the token the input differs."""
    prompts = [e.prompt for e in examples]
    text_only = GraphPromptModel(tiny_config()).generate(prompts, graph_token=False)
    inference = GraphPromptModel(tiny_config("inference")).generate(prompts)
    assert text_only == inference
