"""``GRetrieverRetriever``: G-Retriever as a LlamaIndex retriever.

It returns one :class:`~llama_index.core.schema.NodeWithScore` per question whose
:class:`~llama_index.core.schema.TextNode` holds the textualized PCST subgraph; the node ids,
triples, prizes and PCST objective are in its metadata (hidden from the LLM and the embedder).

Example
-------
>>> from llamaindex_gretriever import GRetrieverRetriever
>>> retriever = GRetrieverRetriever.from_triples(               # doctest: +SKIP
...     [("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
>>> [n.node.metadata["triples"] for n in retriever.retrieve("who directed Cleopatra")]
... # doctest: +SKIP
[[['Cleopatra', 'directed_by', 'Joseph L. Mankiewicz']]]
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from kgcore.gretriever.embedding import TextEmbedder
from kgcore.gretriever.result import GRetrieverResult
from kgcore.gretriever.retriever import GRetriever, PCSTSettings, RegionSettings
from kgcore.gretriever.textgraph import EdgeTextMode
from kgcore.gretriever.textualize import TextFormat, check_text_format

#: Extracts topic entities from a question (e.g. :func:`kgcore.gretriever.bracketed_entities`).
EntityExtractor = Callable[[str], Sequence[str]]


def result_to_node(result: GRetrieverResult, text_format: TextFormat = "paper") -> NodeWithScore:
    """Wrap a :class:`~kgcore.gretriever.GRetrieverResult` as a scored ``TextNode``.

    The score is the PCST objective (net prize of the tree). Every metadata key is excluded
    from the LLM and embedding text, so the prompt holds only the textualized graph.
    """
    metadata: dict[str, Any] = {"retriever": "g-retriever", "text_format": text_format}
    metadata.update(result.to_metadata())
    text = result.textualize(text_format)
    digest = hashlib.sha256(f"{result.question}\x00{text}".encode()).hexdigest()[:32]
    node = TextNode(
        id_=f"gretriever-{digest}",
        text=text,
        metadata=metadata,
        excluded_llm_metadata_keys=list(metadata),
        excluded_embed_metadata_keys=list(metadata),
    )
    return NodeWithScore(node=node, score=result.objective)


class GRetrieverRetriever(BaseRetriever):
    """LlamaIndex retriever returning the G-Retriever subgraph of a question.

    Parameters
    ----------
    retriever : GRetriever
        The core retriever (whole graph or candidate regions through a GraphStore).
    text_format : {"paper", "triples"}
        How the subgraph is written into the node's text.
    entity_extractor : callable, optional
        ``question -> topic entities``; they seed the candidate region.
    hops : int, optional
        Region hops for every question (default: the retriever's ``RegionSettings.hops``).
    callback_manager : CallbackManager, optional
        LlamaIndex callbacks.

    Example
    -------
    >>> from llama_index.core.query_engine import RetrieverQueryEngine   # doctest: +SKIP
    >>> engine = RetrieverQueryEngine.from_args(retriever, llm=llm)      # doctest: +SKIP
    """

    def __init__(
        self,
        retriever: GRetriever,
        text_format: TextFormat = "paper",
        entity_extractor: EntityExtractor | None = None,
        hops: int | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        self.gretriever = retriever
        self.text_format: TextFormat = check_text_format(text_format)
        self.entity_extractor = entity_extractor
        self.hops = hops
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @classmethod
    def from_triples(
        cls,
        triples: Iterable[Sequence[str]],
        embedder: TextEmbedder | None = None,
        edge_text: EdgeTextMode = "relation",
        cache_dir: str | Path | None = "default",
        pcst: PCSTSettings | None = None,
        region: RegionSettings | None = None,
        progress: bool = True,
        **kwargs: Any,
    ) -> GRetrieverRetriever:
        """Index triples (embeddings cached on disk) and wrap them.

        ``kwargs`` go to ``__init__`` (``text_format``, ``entity_extractor``, ``hops``).
        """
        core = GRetriever.from_triples(
            triples, embedder, edge_text, cache_dir, progress, pcst=pcst, region=region
        )
        return cls(core, **kwargs)

    def retrieve_result(self, question: str) -> GRetrieverResult:
        """The core result for ``question`` (topic entities from the extractor, if any)."""
        entities = list(self.entity_extractor(question)) if self.entity_extractor else None
        return self.gretriever.retrieve(question, topic_entities=entities or None, hops=self.hops)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [result_to_node(self.retrieve_result(query_bundle.query_str), self.text_format)]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        # Embedding and PCST are CPU-bound: run them in a thread so the event loop stays free.
        return await asyncio.to_thread(self._retrieve, query_bundle)
