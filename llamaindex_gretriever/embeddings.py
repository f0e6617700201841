"""A LlamaIndex ``BaseEmbedding`` as a G-Retriever :class:`~kgcore.gretriever.TextEmbedder`.

So ``GRetrieverRetriever.from_triples(triples, embed_model=Settings.embed_model)`` embeds with
the model the rest of a LlamaIndex app uses. Vectors are L2-normalised (cosine = dot product).
The wrapping is the core's (:func:`kgcore.embeddings.as_text_embedder`), which every
``embedder`` / ``embed_model`` parameter reads, so a LangChain ``Embeddings`` is taken too.

Example
-------
>>> from llama_index.core.embeddings import MockEmbedding
>>> embedder = LlamaIndexEmbedder(MockEmbedding(embed_dim=4))
>>> embedder.embed(["a", "b"]).shape, embedder.model_id
((2, 4), 'llamaindex:MockEmbedding:unknown')
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding

from kgcore.embeddings import BatchEmbedder, TextEmbedder, as_text_embedder
from kgcore.exceptions import ConfigurationError

__all__ = ["LlamaIndexEmbedder", "text_embedder"]


class LlamaIndexEmbedder(BatchEmbedder):
    """Embed texts with a LlamaIndex embedding model.

    Parameters
    ----------
    embed_model : BaseEmbedding
        Any LlamaIndex embedding model. Its class and ``model_name`` name the embedding cache
        (with the length of its vectors), so two models never share cached vectors.
    """

    def __init__(self, embed_model: Any) -> None:
        if not isinstance(embed_model, BaseEmbedding):
            raise ConfigurationError(
                f"embed_model must be a LlamaIndex BaseEmbedding, got {type(embed_model).__name__}"
            )
        super().__init__(embed_model)


def text_embedder(embedder: Any = None, embed_model: Any = None) -> TextEmbedder | None:
    """The embedder of ``embedder`` or ``embed_model`` (LlamaIndex's name for it), either a
    kg-retrievers ``TextEmbedder``, a LlamaIndex ``BaseEmbedding`` or a LangChain
    ``Embeddings``; ``None`` for neither (the offline all-MiniLM-L6-v2 is then used). Both
    given is an error.

    >>> from llama_index.core.embeddings import MockEmbedding
    >>> text_embedder(embed_model=MockEmbedding(embed_dim=4)).model_id
    'llamaindex:MockEmbedding:unknown'
    """
    if embedder is not None and embed_model is not None:
        raise ConfigurationError("give embedder or embed_model, not both")
    return as_text_embedder(embed_model if embed_model is not None else embedder)
