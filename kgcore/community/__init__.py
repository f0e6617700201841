"""Local Community Search: sampling, community detection, modularity and coarse pruning."""

from kgcore.community.detection import ALGORITHMS, detect_communities, iter_partitions
from kgcore.community.lcs import (
    Community,
    LCSConfig,
    LCSStep,
    coarse_prune,
    local_community_search,
)
from kgcore.community.modularity import community_modularity
from kgcore.community.sampling import SampledSubgraph, sample_neighborhood

__all__ = [
    "ALGORITHMS",
    "Community",
    "LCSConfig",
    "LCSStep",
    "SampledSubgraph",
    "coarse_prune",
    "community_modularity",
    "detect_communities",
    "iter_partitions",
    "local_community_search",
    "sample_neighborhood",
]
