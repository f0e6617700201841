"""The GNN trainer's settings and the seeded subsets of its splits (no model)."""

from __future__ import annotations

import pytest

from kgcore.exceptions import ConfigurationError
from kgmodels.gnn.explagraphs import seeded_subset
from kgmodels.gnn.training import TrainConfig


def test_train_config_refuses_a_zero_learning_rate() -> None:
    with pytest.raises(ConfigurationError, match="lr"):
        TrainConfig(lr=0)


def test_seeded_subset_repeats_and_keeps_order() -> None:
    items = list(range(50))
    first = seeded_subset(items, 10, seed=3)
    assert first == seeded_subset(items, 10, seed=3) == sorted(first)
    assert first != seeded_subset(items, 10, seed=4)
    assert seeded_subset(items, None, seed=0) == items
