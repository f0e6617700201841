"""Node and edge prizes from cosine similarity, as in G-Retriever (He et al., 2024).

The ``k`` nodes most similar to the question get prizes ``k, k-1, ..., 1``; every other node gets 0.
Edges are ranked by their *distinct* similarity values: the edges sharing the ``r``-th highest value
split a prize of ``k - r`` between them, capped just below the previous rank's prize, so ties (for
example many edges with the same relation text) never outweigh a better rank. The arithmetic
follows PyG's ``retrieval_via_pcst`` in float32, so both select the same subgraph.

Example
-------
>>> node_prizes(np.array([0.1, 0.9, 0.5], dtype=np.float32), k=2).tolist()
[0.0, 2.0, 1.0]
>>> edge_prizes(np.array([0.9, 0.9, 0.2], dtype=np.float32), k=2).tolist()
[1.0, 1.0, 0.9800000190734863]
"""

from __future__ import annotations

import numpy as np

from kgcore.exceptions import ConfigurationError, EmbeddingError

#: The paper's small constant: rank ``r`` gets at most the prize of rank ``r-1`` times ``1 - c``.
TIE_DISCOUNT = 0.01


def _check(similarity: np.ndarray, k: int, what: str) -> np.ndarray:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ConfigurationError(f"k for {what} must be a non-negative integer, got {k!r}")
    similarity = np.asarray(similarity, dtype=np.float32)
    if similarity.ndim != 1:
        raise EmbeddingError(f"{what} similarities must be 1-D, got shape {similarity.shape}")
    if not np.isfinite(similarity).all():
        raise EmbeddingError(f"{what} similarities contain NaN or infinite values")
    return similarity


def top_k_indices(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest values, best first; ties go to the lower index.

    Example
    -------
    >>> top_k_indices(np.array([0.2, 0.7, 0.7, 0.1]), 2).tolist()
    [1, 2]
    """
    k = min(int(k), len(values))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < len(values):
        # argpartition narrows to the top k in O(n); ties at the boundary are settled below.
        threshold = np.partition(values, len(values) - k)[len(values) - k]
        candidates = np.flatnonzero(values >= threshold)
    else:
        candidates = np.arange(len(values))
    order = np.lexsort((candidates, -values[candidates]))
    return candidates[order[:k]].astype(np.int64)


def node_prizes(similarity: np.ndarray, k: int) -> np.ndarray:
    """Prizes ``k..1`` for the ``k`` most similar nodes (``k`` is capped at the node count)."""
    similarity = _check(similarity, k, "node")
    prizes = np.zeros(len(similarity), dtype=np.float32)
    top = top_k_indices(similarity, k)
    prizes[top] = np.arange(len(top), 0, -1, dtype=np.float32)
    return prizes


def edge_prizes(similarity: np.ndarray, k: int, tie_discount: float = TIE_DISCOUNT) -> np.ndarray:
    """Prizes for the edges holding the ``k`` highest distinct similarity values.

    ``k`` is capped at the number of distinct values. Rank ``r`` (0-based) shared by ``n`` edges
    gives each ``min((k - r) / n, previous - c)`` where ``previous`` is the last rank's prize
    times ``1 - c`` (``k`` before the first rank).
    """
    similarity = _check(similarity, k, "edge")
    prizes = np.zeros(len(similarity), dtype=np.float32)
    if k == 0 or len(similarity) == 0:
        return prizes
    distinct, inverse, counts = np.unique(similarity, return_inverse=True, return_counts=True)
    k = min(k, len(distinct))
    # Rank 0 is the largest distinct value; only ranks < k get a prize.
    rank = (len(distinct) - 1) - inverse
    ranked_counts = counts[::-1][:k]
    values = np.zeros(k, dtype=np.float32)
    # A loop over the k ranks (not the edges): each cap depends on the previous rank's prize.
    # Python floats and numpy float32 scalars mix exactly as PyG's Python floats and float32
    # tensors do (NEP 50), which keeps the prizes bit-identical to ``retrieval_via_pcst``.
    last: float | np.float32 = float(k)
    for r in range(k):
        share = np.float32(k - r) / np.float32(ranked_counts[r])
        value = min(share, last - tie_discount)
        values[r] = value
        last = value * (1 - tie_discount)
    has_prize = rank < k
    prizes[has_prize] = values[rank[has_prize]]
    return prizes
