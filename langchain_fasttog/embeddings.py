"""LangChain embedding models as kg-retrievers text embedders.

So ``FastToGRetriever(graph=g, llm=m, embeddings=my_embeddings)`` ranks FastToG's communities
(the default ``first_choice="auto"``) and topic facts with the embedding model the app already
uses (an ``OpenAIEmbeddings``, a ``HuggingFaceEmbeddings``...) instead of the offline
all-MiniLM-L6-v2, which needs the ``embeddings`` extra. The wrapping is the core's
(:func:`kgcore.embeddings.as_text_embedder`), which also takes a LlamaIndex ``BaseEmbedding``.

Example
-------
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> embedder = LangChainEmbedder(DeterministicFakeEmbedding(size=4))
>>> embedder.embed(["a", "b"]).shape, embedder.model_id
((2, 4), 'langchain:DeterministicFakeEmbedding:unknown')
"""

from __future__ import annotations

from typing import Any

from langchain_core.embeddings import Embeddings

from kgcore.embeddings import DocumentsEmbedder, as_text_embedder
from kgcore.exceptions import ConfigurationError

__all__ = ["LangChainEmbedder", "as_text_embedder"]


class LangChainEmbedder(DocumentsEmbedder):
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
        super().__init__(embeddings)
