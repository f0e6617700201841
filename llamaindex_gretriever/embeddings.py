"""A LlamaIndex ``BaseEmbedding`` as a G-Retriever :class:`~kgcore.gretriever.TextEmbedder`.

So ``GRetrieverRetriever.from_triples(triples, embed_model=Settings.embed_model)`` embeds with
the model the rest of a LlamaIndex app uses. Vectors are L2-normalised (cosine = dot product).

Example
-------
>>> from llama_index.core.embeddings import MockEmbedding
>>> embedder = LlamaIndexEmbedder(MockEmbedding(embed_dim=4))
>>> embedder.embed(["a", "b"]).shape, embedder.model_id
((2, 4), 'llamaindex:MockEmbedding:unknown')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from kgcore.embeddings import normalize_rows
from kgcore.exceptions import ConfigurationError


class LlamaIndexEmbedder:
    """Embed texts with a LlamaIndex embedding model.

    Parameters
    ----------
    embed_model : BaseEmbedding
        Any LlamaIndex embedding model. Its class and ``model_name`` name the embedding cache,
        so two models never share cached vectors.
    """

    def __init__(self, embed_model: Any) -> None:
        if not isinstance(embed_model, BaseEmbedding):
            raise ConfigurationError(
                f"embed_model must be a LlamaIndex BaseEmbedding, got {type(embed_model).__name__}"
            )
        self.embed_model = embed_model
        name = getattr(embed_model, "model_name", None) or "unknown"
        self.model_id = f"llamaindex:{type(embed_model).__name__}:{name}"

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = self.embed_model.get_text_embedding_batch(texts, show_progress=progress)
        return normalize_rows(np.asarray(vectors, dtype=np.float32))
