from __future__ import annotations

import numpy as np
import pytest

from kgcore.exceptions import ConfigurationError, EmbeddingError
from kgcore.gretriever.prizes import edge_prizes, node_prizes, top_k_indices


def test_node_prizes_rank_top_k_from_k_down_to_one() -> None:
    sims = np.array([0.1, 0.9, 0.5, 0.7], dtype=np.float32)
    assert node_prizes(sims, 3).tolist() == [0.0, 3.0, 1.0, 2.0]


def test_node_prizes_cap_k_at_the_node_count() -> None:
    sims = np.array([0.2, 0.8], dtype=np.float32)
    assert node_prizes(sims, 10).tolist() == [1.0, 2.0]


def test_node_prizes_with_k_zero_are_all_zero() -> None:
    assert node_prizes(np.array([0.3, 0.4]), 0).tolist() == [0.0, 0.0]


def test_top_k_breaks_ties_by_lower_index() -> None:
    assert top_k_indices(np.array([0.5, 0.9, 0.9, 0.9]), 2).tolist() == [1, 2]


def test_edge_prizes_split_a_rank_between_tied_edges() -> None:
    # Three edges share the best value: each gets 2/3; the next rank is capped below it.
    sims = np.array([0.9, 0.9, 0.9, 0.4, 0.1], dtype=np.float32)
    prizes = edge_prizes(sims, 2)
    share = np.float32(2) / np.float32(3)
    assert prizes[:3].tolist() == [share] * 3
    assert prizes[3] == pytest.approx(float(share) * 0.99 - 0.01, rel=1e-6)
    assert prizes[4] == 0.0


def test_edge_prizes_without_ties_count_down_from_k() -> None:
    sims = np.array([0.3, 0.8, 0.5], dtype=np.float32)
    prizes = edge_prizes(sims, 3)
    assert prizes[1] == pytest.approx(2.99, rel=1e-6)  # k - c: just below k
    assert prizes[2] == 2.0
    assert prizes[0] == 1.0


def test_edge_prizes_cap_k_at_the_distinct_values() -> None:
    sims = np.array([0.5, 0.5, 0.2], dtype=np.float32)
    prizes = edge_prizes(sims, 10)
    assert (prizes > 0).all()


@pytest.mark.parametrize("k", [-1, 1.5, True])
def test_bad_k_is_rejected(k: object) -> None:
    with pytest.raises(ConfigurationError):
        node_prizes(np.array([0.1]), k)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        edge_prizes(np.array([0.1]), k)  # type: ignore[arg-type]


def test_nan_similarities_are_rejected() -> None:
    with pytest.raises(EmbeddingError):
        node_prizes(np.array([0.1, np.nan]), 1)
