"""Graph encoders for the graph prompt: GAT and a Graph Transformer, with size presets.

The GAT is PyG's ``torch_geometric.nn.models.GAT``. PyG 2.8 has no Graph Transformer model,
so :class:`GraphTransformer` stacks ``TransformerConv`` layers (multi-head attention over
neighbours, edge features in the keys and values), as G-Retriever's own code does. Both read
edge features (``edge_dim``) and expose ``out_channels``, which PyG's ``GRetriever`` sizes its
projector from.

Presets (``GNNConfig.preset``): ``paper`` (4 layers, 4 heads, hidden 1024, as in the paper),
``cpu`` (2 layers, 4 heads, hidden 256) and ``tiny`` (1 layer, 2 heads, hidden 32, for tests).

Example
-------
>>> import torch
>>> gnn = build_gnn(GNNConfig.preset("tiny"), in_channels=8)
>>> gnn(torch.randn(3, 8), torch.tensor([[0, 1], [1, 2]]), edge_attr=torch.randn(2, 8)).shape
torch.Size([3, 32])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

import torch
from torch import Tensor

from kgcore.exceptions import ConfigurationError

GNNKind = Literal["gat", "graph-transformer"]
GNN_KINDS: tuple[str, ...] = ("gat", "graph-transformer")
_PRESETS: dict[str, dict[str, int]] = {
    "paper": {"num_layers": 4, "heads": 4, "hidden_channels": 1024},
    "cpu": {"num_layers": 2, "heads": 4, "hidden_channels": 256},
    "tiny": {"num_layers": 1, "heads": 2, "hidden_channels": 32},
}


@dataclass(frozen=True)
class GNNConfig:
    """Which graph encoder, and how big.

    Attributes
    ----------
    kind : {"gat", "graph-transformer"}
        The encoder.
    num_layers, heads, hidden_channels : int
        Depth, attention heads, and width (also the output width); ``hidden_channels`` must be
        divisible by ``heads``.
    dropout : float
        Dropout between layers (the paper: 0).

    Example
    -------
    >>> GNNConfig.preset("paper", kind="graph-transformer").hidden_channels
    1024
    """

    kind: str = "gat"
    num_layers: int = 4
    heads: int = 4
    hidden_channels: int = 1024
    dropout: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in GNN_KINDS:
            raise ConfigurationError(
                f"unknown GNN {self.kind!r}; expected one of {', '.join(GNN_KINDS)}"
            )
        for name in ("num_layers", "heads", "hidden_channels"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"{name} must be a positive integer, got {value!r}")
        if self.hidden_channels % self.heads:
            raise ConfigurationError(
                f"hidden_channels ({self.hidden_channels}) must be divisible by heads "
                f"({self.heads})"
            )
        if not 0.0 <= self.dropout < 1.0:
            raise ConfigurationError(f"dropout must be in [0, 1), got {self.dropout}")

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> GNNConfig:
        """A named size (``paper``, ``cpu``, ``tiny``) with optional field overrides."""
        if name not in _PRESETS:
            raise ConfigurationError(
                f"unknown GNN preset {name!r}; expected one of {', '.join(_PRESETS)}"
            )
        return cls(**{**_PRESETS[name], **overrides})

    def to_dict(self) -> dict[str, Any]:
        """The fields, for a checkpoint's metadata."""
        return asdict(self)


class GraphTransformer(torch.nn.Module):
    """Stacked ``TransformerConv`` layers with layer norm and ReLU between them.

    Parameters
    ----------
    in_channels, hidden_channels : int
        Input and hidden/output widths (heads are concatenated: ``hidden_channels / heads``
        each).
    num_layers, heads : int
        Depth and attention heads.
    edge_dim : int, optional
        Width of the edge features.
    dropout : float
        Attention and between-layer dropout.

    Example
    -------
    >>> gt = GraphTransformer(8, 16, num_layers=2, heads=4, edge_dim=8)
    >>> gt(torch.randn(2, 8), torch.tensor([[0], [1]]), torch.randn(1, 8)).shape
    torch.Size([2, 16])
    """

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        num_layers: int = 4,
        heads: int = 4,
        edge_dim: int | None = None,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        from torch_geometric.nn import TransformerConv

        self.out_channels = hidden_channels
        self.dropout = dropout
        self.convs = torch.nn.ModuleList()
        self.norms = torch.nn.ModuleList()
        width = in_channels
        for layer in range(num_layers):
            self.convs.append(
                TransformerConv(
                    width,
                    hidden_channels // heads,
                    heads=heads,
                    edge_dim=edge_dim,
                    dropout=dropout,
                )
            )
            if layer < num_layers - 1:
                # Layer norm, not batch norm: no running statistics, so a graph's encoding
                # does not depend on the other graphs of its batch.
                self.norms.append(torch.nn.LayerNorm(hidden_channels))
            width = hidden_channels

    def forward(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None = None) -> Tensor:
        """Node embeddings of shape ``(num_nodes, hidden_channels)``."""
        for layer, conv in enumerate(self.convs):
            x = conv(x, edge_index, edge_attr=edge_attr)
            if layer < len(self.norms):
                x = self.norms[layer](x).relu()
                x = torch.nn.functional.dropout(x, p=self.dropout, training=self.training)
        return x


def build_gnn(config: GNNConfig, in_channels: int, edge_dim: int | None = None) -> torch.nn.Module:
    """The encoder ``config`` names, reading ``in_channels``-wide node features.

    ``edge_dim`` defaults to ``in_channels`` (node and edge texts share one embedding model).
    """
    if in_channels < 1:
        raise ConfigurationError(f"in_channels must be positive, got {in_channels}")
    edge_dim = in_channels if edge_dim is None else edge_dim
    if config.kind == "gat":
        from torch_geometric.nn.models import GAT

        gat: torch.nn.Module = GAT(
            in_channels,
            config.hidden_channels,
            config.num_layers,
            out_channels=config.hidden_channels,
            dropout=config.dropout,
            heads=config.heads,
            edge_dim=edge_dim,
        )
        return gat
    return GraphTransformer(
        in_channels,
        config.hidden_channels,
        num_layers=config.num_layers,
        heads=config.heads,
        edge_dim=edge_dim,
        dropout=config.dropout,
    )
