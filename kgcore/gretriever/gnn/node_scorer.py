"""G-Retriever's GNN as an answer-node scorer (GNN-RAG style): which node answers the question.

The retrieved subgraph (:func:`~kgcore.gretriever.gnn.scorer_data.scorer_data`) is read by a
question-conditioned, relation-aware GNN: each node starts from its name's embedding, its
product with the question's and its topic-entity flag; each edge's features (relation
embedding, its product with the question's, direction flag) are projected and, in layer ``l``,
multiplied by an instruction ``sigmoid(W_l q)`` taken from the question, so each layer can follow
other relations (hop ``l`` of the question's path); PyG's ``TransformerConv`` passes the
messages (attention with the edge features in keys and values), with residuals and layer norm.
A linear head gives every node a logit: "this node is a gold answer". Trained with binary
cross-entropy by :mod:`kgmodels.gnn.node_scoring_training`.

A checkpoint is one ``.safetensors`` file whose metadata hold ``format`` (:data:`SCORER_FORMAT`),
the model ``config`` and the ``retrieval`` settings it was trained with, which the
``gretriever-gnn`` method rebuilds (:func:`checkpoint_format` tells the kinds apart).

Example
-------
>>> import numpy as np
>>> from kgcore.gretriever.gnn.scorer_data import scorer_data
>>> model = NodeScorer(NodeScorerConfig(dim=4, hidden=8, heads=2, layers=2))
>>> data = scorer_data(np.eye(3, 4), [True, False, False], [(0, 1), (1, 2)],
...                    np.ones((2, 4)), np.ones(4))
>>> model(data).shape
torch.Size([3])
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from kgcore.exceptions import ConfigurationError

SCORER_FORMAT = "kg-retrievers/gretriever-node-scorer/1"


@dataclass(frozen=True)
class NodeScorerConfig:
    """The scorer's size.

    Attributes
    ----------
    dim : int
        Width of the sentence embeddings (all-MiniLM-L6-v2: 384).
    hidden : int
        Width of the node states (divisible by ``heads``).
    layers : int
        Message-passing layers (one a hop: 3 for 3-hop questions).
    heads : int
        Attention heads of each ``TransformerConv``.
    dropout : float
        Dropout of the node states and attention while training.
    """

    dim: int = 384
    hidden: int = 128
    layers: int = 3
    heads: int = 4
    dropout: float = 0.1

    def __post_init__(self) -> None:
        for name in ("dim", "hidden", "layers", "heads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"node scorer {name} must be a positive integer")
        if self.hidden % self.heads:
            raise ConfigurationError(
                f"node scorer hidden ({self.hidden}) must be divisible by heads ({self.heads})"
            )
        if not 0.0 <= self.dropout < 1.0:
            raise ConfigurationError(f"node scorer dropout must be in [0, 1), got {self.dropout}")

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> NodeScorerConfig:
        """The config of a checkpoint's metadata (unknown fields are an error)."""
        unknown = sorted(set(values) - set(cls.__dataclass_fields__))
        if unknown:
            raise ConfigurationError(f"unknown node scorer fields: {', '.join(unknown)}")
        return cls(**values)


class NodeScorer(torch.nn.Module):
    """Question-conditioned relation-aware GNN giving each node of a subgraph a logit."""

    def __init__(self, config: NodeScorerConfig) -> None:
        super().__init__()
        from torch_geometric.nn import TransformerConv

        self.config = config
        dim, hidden = config.dim, config.hidden
        self.node_in = torch.nn.Sequential(
            torch.nn.Linear(2 * dim + 1, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden)
        )
        self.edge_in = torch.nn.Linear(2 * dim + 1, hidden)
        self.instructions = torch.nn.ModuleList(
            torch.nn.Linear(dim, hidden) for _ in range(config.layers)
        )
        self.convs = torch.nn.ModuleList(
            TransformerConv(
                hidden,
                hidden // config.heads,
                heads=config.heads,
                edge_dim=hidden,
                dropout=config.dropout,
            )
            for _ in range(config.layers)
        )
        self.norms = torch.nn.ModuleList(torch.nn.LayerNorm(hidden) for _ in range(config.layers))
        self.head = torch.nn.Sequential(
            torch.nn.Linear(2 * hidden + 1, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)
        )

    def forward(self, data: Any) -> torch.Tensor:
        """A logit per node of ``data`` (one graph or a PyG batch), shape ``(num_nodes,)``."""
        x, edge_index, edge_attr = data.x, data.edge_index, data.edge_attr
        batch = getattr(data, "batch", None)
        if batch is None:
            batch = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)
        vectors, topic = x[:, :-1], x[:, -1:]
        node_q = data.q[batch]
        edge_q = node_q[edge_index[0]] if edge_index.numel() else data.q[:0]
        relations, direction = edge_attr[:, :-1], edge_attr[:, -1:]
        start = self.node_in(torch.cat([vectors, vectors * node_q, topic], dim=1))
        edges = self.edge_in(torch.cat([relations, relations * edge_q, direction], dim=1))
        state = start
        dropout = self.config.dropout
        for instruction, conv, norm in zip(self.instructions, self.convs, self.norms, strict=True):
            gated = edges * torch.sigmoid(instruction(edge_q))
            message = conv(state, edge_index, edge_attr=gated)
            message = torch.nn.functional.dropout(message, p=dropout, training=self.training)
            state = norm(state + torch.relu(message))
        return self.head(torch.cat([state, start, topic], dim=1)).squeeze(-1)


@dataclass
class ScorerCheckpoint:
    """A loaded node scorer and what its checkpoint says of it.

    Attributes
    ----------
    model : NodeScorer
        In evaluation mode.
    retrieval : dict
        The retrieval settings it was trained with (``hops``, ``k_nodes``, ``k_edges``...).
    extra : dict
        Training facts (data, epochs, figures).
    """

    model: NodeScorer
    retrieval: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


def checkpoint_metadata(path: str | Path) -> dict[str, str]:
    """The metadata of a ``.safetensors`` checkpoint, or a one-line ConfigurationError."""
    from safetensors import safe_open

    path = Path(path)
    if not path.is_file():
        raise ConfigurationError(f"checkpoint not found: {path}")
    try:
        with safe_open(str(path), framework="pt") as handle:
            return dict(handle.metadata() or {})
    except Exception as err:
        raise ConfigurationError(f"{path} is not a safetensors checkpoint: {err}") from err


def checkpoint_format(path: str | Path) -> str:
    """The ``format`` a checkpoint's metadata name (``""`` when none)."""
    return checkpoint_metadata(path).get("format", "")


def save_scorer(
    model: NodeScorer,
    path: str | Path,
    retrieval: dict[str, Any],
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write the scorer's parameters, config and retrieval settings (atomically)."""
    from safetensors.torch import save_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = {
        "format": SCORER_FORMAT,
        "config": json.dumps(asdict(model.config)),
        "retrieval": json.dumps(retrieval),
        "extra": json.dumps(extra or {}),
    }
    state = {name: tensor.detach().contiguous() for name, tensor in model.state_dict().items()}
    tmp = path.with_name(path.name + ".tmp")
    save_file(state, str(tmp), metadata=metadata)
    tmp.replace(path)
    return path


def load_scorer(path: str | Path) -> ScorerCheckpoint:
    """The scorer of a checkpoint written by :func:`save_scorer`, in evaluation mode."""
    from safetensors.torch import load_file

    metadata = checkpoint_metadata(path)
    if metadata.get("format") != SCORER_FORMAT:
        raise ConfigurationError(f"{path} is not a node scorer checkpoint")
    try:
        config = NodeScorerConfig.from_dict(json.loads(metadata["config"]))
        retrieval = json.loads(metadata.get("retrieval", "{}"))
        extra = json.loads(metadata.get("extra", "{}"))
    except (KeyError, ValueError, TypeError) as err:
        raise ConfigurationError(f"{path}: unreadable node scorer metadata ({err})") from err
    model = NodeScorer(config)
    try:
        model.load_state_dict(load_file(str(path)))
    except RuntimeError as err:
        first = str(err).strip().splitlines()[0]
        raise ConfigurationError(f"{path} does not fit its node scorer config: {first}") from err
    model.eval()
    return ScorerCheckpoint(model, retrieval, extra)
