"""The real all-MiniLM-L6-v2 embedder, offline (a real local model)."""

from __future__ import annotations

import numpy as np

from kgcore.gretriever import SentenceTransformerEmbedder


def test_real_minilm_embeds_offline_and_normalised(minilm: SentenceTransformerEmbedder) -> None:
    vectors = minilm.embed(["film", "movie", "tax law"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
