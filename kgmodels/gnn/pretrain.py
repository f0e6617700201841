"""Stage 1 of the graph prompt's training: the GNN learns the label from the graph alone.

Before prompt tuning, the graph encoder of a :class:`~kgcore.gretriever.gnn.GraphPromptModel`
(``model.inner.gnn``) is trained with an auxiliary head (one linear layer on the mean-pooled
graph vector, the vector the projector reads) to predict the example's label with a
class-weighted cross-entropy; no LLM runs, so an epoch over ExplaGraphs' 1,659 graphs takes
seconds. The GNN's weights of the best validation epoch are kept; the head is dropped. Not in
the paper: a frozen 135M LLM trained on a CPU budget learns only the label prior when the
graph token starts from a random GNN (``models/gretriever-gnn/README.md``), so the GNN is
first taught what in the graph tells the labels apart (negated relations, antonyms).

Example
-------
>>> history = pretrain_gnn(model.inner.gnn, train, val, PretrainConfig(epochs=6))  # doctest: +SKIP
>>> max(h["val_accuracy"] for h in history)                              # doctest: +SKIP
0.7
"""

from __future__ import annotations

import copy
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from kgcore.exceptions import ConfigurationError
from kgmodels.gnn.explagraphs import LabelledPrompt


@dataclass(frozen=True)
class PretrainConfig:
    """Stage-1 settings.

    Attributes
    ----------
    epochs : int
        Passes over the training graphs (the best validation epoch is kept).
    lr, weight_decay : float
        AdamW's.
    batch_size : int
        Graphs per step.
    seed : int
        Seeds the head's initial weights and the batch order.
    progress : bool
        A line per epoch on stderr.
    """

    epochs: int = 20
    lr: float = 1e-3
    weight_decay: float = 0.01
    batch_size: int = 32
    seed: int = 0
    progress: bool = True

    def __post_init__(self) -> None:
        for name in ("epochs", "batch_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"{name} must be a positive integer, got {value!r}")
        if not self.lr > 0 or self.weight_decay < 0:
            raise ConfigurationError("stage 1 needs lr > 0 and weight_decay >= 0")


def _pooled(gnn: torch.nn.Module, examples: Sequence[LabelledPrompt], device: Any) -> torch.Tensor:
    """The mean-pooled GNN vectors of the examples' graphs, one row each (as PyG's
    ``GRetriever.encode`` pools them)."""
    from torch_geometric.data import Batch
    from torch_geometric.utils import scatter

    batch = Batch.from_data_list([e.prompt.data for e in examples]).to(device)
    nodes = gnn(batch.x, batch.edge_index, edge_attr=batch.edge_attr)
    pooled: torch.Tensor = scatter(nodes, batch.batch, dim=0, reduce="mean")
    return pooled


def _accuracy(
    gnn: torch.nn.Module,
    head: torch.nn.Module,
    examples: Sequence[LabelledPrompt],
    index: dict[str, int],
    batch_size: int,
    device: Any,
) -> float:
    hits = 0
    with torch.no_grad():
        for first in range(0, len(examples), batch_size):
            chunk = examples[first : first + batch_size]
            predicted = head(_pooled(gnn, chunk, device)).argmax(dim=1).tolist()
            hits += sum(p == index[e.label] for p, e in zip(predicted, chunk, strict=True))
    return hits / len(examples)


def pretrain_gnn(
    gnn: torch.nn.Module,
    train: Sequence[LabelledPrompt],
    val: Sequence[LabelledPrompt],
    config: PretrainConfig | None = None,
    device: Any = "cpu",
) -> list[dict[str, Any]]:
    """Train ``gnn`` with a label head; leave it with the best validation epoch's weights.

    ``gnn`` is a :func:`~kgcore.gretriever.gnn.build_gnn` encoder (``out_channels`` wide),
    e.g. ``model.inner.gnn``. Returns one ``{"epoch", "train_loss", "val_accuracy"}`` row per
    epoch.
    """
    config = config or PretrainConfig()
    if not train or not val:
        raise ConfigurationError("stage 1 needs training and validation examples")
    if any(e.prompt.data is None for e in (*train, *val)):
        raise ConfigurationError("stage 1 needs a graph for every example")
    labels = sorted({e.label for e in train})
    if len(labels) < 2:
        raise ConfigurationError(f"stage 1 needs at least two labels, got {labels}")
    index = {label: number for number, label in enumerate(labels)}
    counts = Counter(e.label for e in train)
    weights = torch.tensor([len(train) / (len(labels) * counts[lab]) for lab in labels])
    torch.manual_seed(config.seed)
    width = getattr(gnn, "out_channels", None)
    if not isinstance(width, int):
        raise ConfigurationError("stage 1 needs a GNN with an integer out_channels")
    head = torch.nn.Linear(width, len(labels)).to(device)
    optimizer = torch.optim.AdamW(
        [*gnn.parameters(), *head.parameters()], lr=config.lr, weight_decay=config.weight_decay
    )
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights.to(device))
    rng = np.random.default_rng(config.seed)
    history: list[dict[str, Any]] = []
    best, best_state = -1.0, copy.deepcopy(gnn.state_dict())
    for epoch in range(config.epochs):
        gnn.train()
        order = rng.permutation(len(train))
        losses = []
        for first in range(0, len(order), config.batch_size):
            chunk = [train[i] for i in order[first : first + config.batch_size]]
            target = torch.tensor([index[e.label] for e in chunk], device=device)
            loss = loss_fn(head(_pooled(gnn, chunk, device)), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            losses.append(float(loss.detach()))
        gnn.eval()
        accuracy = _accuracy(gnn, head, val, index, config.batch_size, device)
        row = {
            "epoch": epoch + 1,
            "train_loss": round(sum(losses) / len(losses), 5),
            "val_accuracy": round(accuracy, 5),
        }
        history.append(row)
        if config.progress:
            print(f"stage 1: {row}", file=sys.stderr)
        if accuracy > best:
            best, best_state = accuracy, copy.deepcopy(gnn.state_dict())
    gnn.load_state_dict(best_state)
    gnn.train()
    return history
