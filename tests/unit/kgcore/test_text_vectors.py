"""BoundedTextVectors keeps each cached row on its own: no row holds its embedding batch alive."""

from __future__ import annotations

import numpy as np

from kgcore.text_vectors import BoundedTextVectors


def test_a_cached_row_does_not_keep_its_batch_alive():
    batches: list[np.ndarray] = []

    def embed(texts):
        batch = np.ones((len(texts), 4), dtype=np.float32)
        batches.append(batch)
        return batch

    cache = BoundedTextVectors(embed, capacity=10)
    cache.vectors(["a", "b", "c"])
    for row in cache._rows.values():
        assert row.base is None and not np.shares_memory(row, batches[0])


def test_least_recently_used_rows_go_first():
    cache = BoundedTextVectors(lambda texts: np.zeros((len(texts), 2)), capacity=2)
    cache.vectors(["a", "b"])
    cache.vectors(["a"])
    cache.vectors(["c"])
    assert list(cache._rows) == ["a", "c"]
