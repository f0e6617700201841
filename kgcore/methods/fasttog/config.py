"""FastToG settings, with the paper's defaults.

Example
-------
>>> FastToGConfig().width, FastToGConfig().max_depth, FastToGConfig().max_community_size
(3, 5, 4)
>>> FastToGConfig.node_level().max_community_size
1
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kgcore.community.detection import ALGORITHMS
from kgcore.community.lcs import LCSConfig
from kgcore.community.sampling import NEIGHBORS_PER_HOP
from kgcore.validation import FASTTOG_LIMITS, check_settings

FALLBACKS = ("cot", "cot-sc", "io", "none")


@dataclass(frozen=True)
class FastToGConfig:
    """Every FastToG knob.

    Paper defaults: ``width`` W=3, ``max_depth`` D_max=5, ``max_community_size`` M=4, Louvain,
    temperature 0.4 for pruning and 0.1 for reasoning. The sampling radius, decay and caps, the
    coarse top-k and the token caps are this project's defaults (the paper leaves them open).
    """

    width: int = 3
    max_depth: int = 5
    max_community_size: int = 4
    algorithm: str = "louvain"
    radius: int = 2
    decay: float = 1.0
    max_subgraph_nodes: int = 160
    neighbors_per_hop: tuple[int, ...] = NEIGHBORS_PER_HOP
    max_neighbors_per_node: int | None = 5000
    hub_degree: int | None = 100
    coarse_top_k: int = 8
    leaf_slots: int = 3
    prune_temperature: float = 0.4
    reason_temperature: float = 0.1
    fallback: str = "cot"
    seed: int = 0
    max_option_triples: int = 8
    prune_max_tokens: int = 64
    reason_max_tokens: int = 256

    def __post_init__(self) -> None:
        if self.width < 1 or self.max_depth < 1 or self.max_community_size < 1:
            raise ValueError("width, max_depth and max_community_size must be >= 1")
        if self.algorithm not in ALGORITHMS:
            raise ValueError(
                f"algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}"
            )
        if self.fallback not in FALLBACKS:
            raise ValueError(
                f"fallback must be one of {', '.join(FALLBACKS)}, got {self.fallback!r}"
            )
        if self.coarse_top_k < 1:
            raise ValueError("coarse_top_k must be >= 1")
        check_settings("FastToG", self, FASTTOG_LIMITS)  # documented maxima bound the cost

    @classmethod
    def node_level(cls, **overrides: Any) -> FastToGConfig:
        """The paper's node-level ablation: communities of one node (M=1)."""
        return cls(**{"max_community_size": 1, **overrides})

    def with_overrides(self, **overrides: Any) -> FastToGConfig:
        """A copy with some settings changed (``None`` values are ignored)."""
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    def lcs_config(self) -> LCSConfig:
        return LCSConfig(
            max_community_size=self.max_community_size,
            algorithm=self.algorithm,
            radius=self.radius,
            decay=self.decay,
            max_subgraph_nodes=self.max_subgraph_nodes,
            neighbors_per_hop=self.neighbors_per_hop,
            max_neighbors_per_node=self.max_neighbors_per_node,
            hub_degree=self.hub_degree,
            coarse_top_k=self.coarse_top_k,
            leaf_slots=self.leaf_slots,
        )
