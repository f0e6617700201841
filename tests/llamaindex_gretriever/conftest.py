from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pytest

MOVIE_TRIPLES = [
    ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    ("Cleopatra", "release_year", "1963"),
    ("Cleopatra", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "directed_by", "George Stevens"),
    ("Shane", "directed_by", "George Stevens"),
]


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


@pytest.fixture
def movie_triples() -> list[tuple[str, str, str]]:
    return list(MOVIE_TRIPLES)


@pytest.fixture
def embedder() -> SeededEmbedder:
    return SeededEmbedder()


@pytest.fixture(scope="session")
def minilm():  # type: ignore[no-untyped-def]
    from kgcore.gretriever import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(batch_size=32)
