"""Deterministic test embedders for the G-Retriever tests (no model needed)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import numpy as np


class TableEmbedder:
    """Embeds known texts with given vectors and any other text with a seeded random vector.

    Counts the texts it embeds, so tests can tell whether a cache was used.
    """

    def __init__(self, vectors: Mapping[str, Sequence[float]] | None = None, dim: int = 8) -> None:
        self.vectors = {k: np.asarray(v, dtype=np.float32) for k, v in (vectors or {}).items()}
        self.dim = dim if not self.vectors else len(next(iter(self.vectors.values())))
        self.model_id = f"table-embedder-{self.dim}"
        self.embedded: list[str] = []

    def _vector(self, text: str) -> np.ndarray:
        if text in self.vectors:
            vector = self.vectors[text]
        else:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).normal(size=self.dim).astype(np.float32)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        self.embedded.extend(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts]).astype(np.float32)


class SeededEmbedder:
    """A seeded random vector per text (no model); records what it embedded."""

    model_id = "seeded-test-embedder"

    def __init__(self, dim: int = 8) -> None:
        self.dim = dim
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        self.embedded.extend(texts)
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).normal(size=self.dim)
            rows.append(v / np.linalg.norm(v))
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
