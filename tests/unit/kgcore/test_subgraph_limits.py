"""The largest MetaQA hub at radius 3 and 4 stays within the subgraph caps."""

from __future__ import annotations

import pytest

from kgcore.community.lcs import LCS_LIMITS
from kgcore.community.sampling import sample_neighborhood
from kgcore.exceptions import InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.methods.fasttog import FastToGConfig


@pytest.mark.parametrize("radius", [3, 4])
def test_largest_hub_stays_within_the_caps(metaqa_store: InMemoryGraphStore, radius: int) -> None:
    hub = max(metaqa_store.graph.nodes, key=metaqa_store.graph.degree)
    assert metaqa_store.graph.degree(hub) > 1000
    cfg = FastToGConfig(radius=radius, decay=1.0).lcs
    sub = sample_neighborhood(
        metaqa_store,
        [hub],
        radius=cfg.radius,
        decay=cfg.decay,
        max_nodes=cfg.max_subgraph_nodes,
        max_neighbors_per_node=cfg.max_neighbors_per_node,
    )
    assert len(sub.nodes) <= cfg.max_subgraph_nodes
    biggest = sample_neighborhood(
        metaqa_store,
        [hub],
        radius=radius,
        decay=1.0,
        max_nodes=int(LCS_LIMITS["max_subgraph_nodes"][1]),
        max_neighbors_per_node=int(LCS_LIMITS["max_neighbors_per_node"][1]),
    )
    assert len(biggest.nodes) <= LCS_LIMITS["max_subgraph_nodes"][1]


def test_radius_beyond_the_maximum_is_refused() -> None:
    with pytest.raises(InvalidSettingError, match="radius=5"):
        FastToGConfig(radius=5)
