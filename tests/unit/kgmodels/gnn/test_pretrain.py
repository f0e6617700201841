"""Stage 1: the GNN learns the label from the graph alone (tiny graphs, no LLM)."""

from __future__ import annotations

import pytest
import torch

from kgcore.exceptions import ConfigurationError
from kgcore.gretriever.gnn import GNNConfig, GraphPrompt, build_gnn, textual_graph_to_data
from kgcore.gretriever.textgraph import TextualGraph
from kgmodels.gnn.explagraphs import LabelledPrompt
from kgmodels.gnn.pretrain import PretrainConfig, pretrain_gnn
from tests.support.fake_embedder import FakeEmbedder

DIM = 16


def _examples(count: int, offset: int = 0) -> list[LabelledPrompt]:
    """Counter graphs carry a negated relation, support graphs a plain one."""
    embedder = FakeEmbedder(dim=DIM)
    out = []
    for number in range(offset, offset + count):
        counter = number % 2 == 1
        relation = "not capable of" if counter else "capable of"
        graph = TextualGraph.from_triples(
            [(f"thing {number}", relation, f"act {number}"), (f"act {number}", "used for", "x")]
        )
        prompt = GraphPrompt("Support or counter?", "", textual_graph_to_data(graph, embedder))
        out.append(LabelledPrompt(f"g{number}", prompt, "counter" if counter else "support"))
    return out


def test_stage_one_loss_falls_and_the_head_separates_the_labels() -> None:
    torch.manual_seed(0)
    gnn = build_gnn(GNNConfig.preset("tiny", kind="graph-transformer"), DIM)
    train, val = _examples(24), _examples(10, offset=100)
    before = {k: v.clone() for k, v in gnn.state_dict().items()}
    history = pretrain_gnn(
        gnn, train, val, PretrainConfig(epochs=8, lr=1e-2, batch_size=8, progress=False)
    )
    assert [row["epoch"] for row in history] == list(range(1, 9))
    assert history[-1]["train_loss"] < history[0]["train_loss"] - 0.2, history
    assert max(row["val_accuracy"] for row in history) >= 0.8  # chance: 0.5
    after = gnn.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)


def test_stage_one_keeps_the_best_epoch_and_repeats_with_its_seed() -> None:
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        gnn = build_gnn(GNNConfig.preset("tiny", kind="graph-transformer"), DIM)
        history = pretrain_gnn(
            gnn,
            _examples(16),
            _examples(6, 50),
            PretrainConfig(epochs=3, batch_size=4, progress=False),
        )
        runs.append((history, {k: v.clone() for k, v in gnn.state_dict().items()}))
    assert runs[0][0] == runs[1][0]
    assert all(torch.equal(runs[0][1][k], runs[1][1][k]) for k in runs[0][1])


def test_stage_one_refuses_bad_input() -> None:
    gnn = build_gnn(GNNConfig.preset("tiny"), DIM)
    one_label = [e for e in _examples(6) if e.label == "support"]
    with pytest.raises(ConfigurationError, match="two labels"):
        pretrain_gnn(gnn, one_label, _examples(2), PretrainConfig(epochs=1))
    with pytest.raises(ConfigurationError, match="training and validation"):
        pretrain_gnn(gnn, _examples(4), [], PretrainConfig(epochs=1))
    with pytest.raises(ConfigurationError, match="epochs"):
        PretrainConfig(epochs=0)
