"""LangChain embedding models as kg-retrievers text embedders.

So ``FastToGRetriever(graph=g, llm=m, embeddings=my_embeddings)`` ranks FastToG's first
communities (the default ``first_choice="auto"``) with the embedding model the app already
uses (an ``OpenAIEmbeddings``, a ``HuggingFaceEmbeddings``...) instead of the offline
all-MiniLM-L6-v2, which needs the ``embeddings`` extra.

Example
-------
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> embedder = LangChainEmbedder(DeterministicFakeEmbedding(size=4))
>>> embedder.embed(["a", "b"]).shape, embedder.model_id
((2, 4), 'langchain:DeterministicFakeEmbedding:unknown')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from langchain_core.embeddings import Embeddings

from kgcore.exceptions import ConfigurationError

if TYPE_CHECKING:
    from kgcore.embeddings import TextEmbedder


class LangChainEmbedder:
    """Embed texts with a LangChain ``Embeddings`` model.

    Every text, the question included, goes through ``embed_documents`` in one batch: the
    texts are compared with each other, so they are embedded the same way.

    Parameters
    ----------
    embeddings : langchain_core.embeddings.Embeddings
        Any LangChain embedding model. Its class and ``model`` (or ``model_name``) name it in
        ``model_id``.
    """

    def __init__(self, embeddings: Any) -> None:
        if not isinstance(embeddings, Embeddings):
            raise ConfigurationError(
                "embeddings must be a LangChain Embeddings (langchain_core.embeddings), "
                f"got {type(embeddings).__name__}"
            )
        self.embeddings = embeddings
        name = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None)
        self.model_id = f"langchain:{type(embeddings).__name__}:{name or 'unknown'}"

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Unit-norm ``float32`` rows, one per text (``progress`` is not shown)."""
        # Imported here: the kgcore.gretriever package takes about 0.5 s to import.
        from kgcore.embeddings import normalize_rows

        texts = list(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return normalize_rows(np.asarray(self.embeddings.embed_documents(texts), np.float32))


def as_text_embedder(embeddings: Any) -> TextEmbedder | None:
    """``embeddings`` as a text embedder: ``None`` stays ``None``, a LangChain ``Embeddings``
    is wrapped in :class:`LangChainEmbedder`, a kg-retrievers
    :class:`~kgcore.embeddings.TextEmbedder` (an ``embed`` method and a
    ``model_id``) is kept; anything else is a ``ConfigurationError``.

    >>> as_text_embedder(None) is None
    True
    """
    if embeddings is None:
        return None
    if isinstance(embeddings, Embeddings):
        return LangChainEmbedder(embeddings)
    if callable(getattr(embeddings, "embed", None)) and hasattr(embeddings, "model_id"):
        return embeddings  # a TextEmbedder: checked by its shape, as the Protocol does
    raise ConfigurationError(
        "embeddings must be a LangChain Embeddings or a kg-retrievers TextEmbedder "
        f"(an embed method and a model_id), got {type(embeddings).__name__}"
    )
