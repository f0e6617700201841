"""G-Retriever as a property-graph sub-retriever for ``PropertyGraphIndex``.

:class:`GRetrieverPGRetriever` reads the entity triplets of any LlamaIndex
``PropertyGraphStore`` (a ``SimplePropertyGraphStore`` by default) and answers with the PCST
subgraph. By default it embeds lazily: each question embeds only its candidate region (the
neighbourhood of the topic entities its ``entity_extractor`` finds; a small graph is embedded
whole), cached by text on disk, so the first answer does not wait for the whole graph;
:meth:`GRetrieverPGRetriever.build_index` embeds everything up front.

Example
-------
>>> from llama_index.core import PropertyGraphIndex                       # doctest: +SKIP
>>> index = PropertyGraphIndex.from_existing(property_graph_store=store)  # doctest: +SKIP
>>> retriever = index.as_retriever(                                      # doctest: +SKIP
...     sub_retrievers=[GRetrieverPGRetriever(index.property_graph_store)])
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from llama_index.core.graph_stores.types import PropertyGraphStore
from llama_index.core.indices.property_graph.sub_retrievers.base import BasePGRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from kgcore.concurrency import run_graph_work
from kgcore.exceptions import EmptyGraphError
from kgcore.foreign_graphs import read_property_graph
from kgcore.gretriever.planned import preset_paths
from kgcore.gretriever.retriever import GRetriever, PCSTSettings, RegionSettings
from kgcore.gretriever.textgraph import EdgeTextMode
from kgcore.gretriever.textualize import TextFormat, check_text_format
from kgcore.linking import bracketed_entities
from llamaindex_gretriever.embeddings import text_embedder
from llamaindex_gretriever.retriever import EntityExtractor, result_to_node
from llamaindex_gretriever.source_text import source_chunks, with_source_text


class GRetrieverPGRetriever(BasePGRetriever):
    """Sub-retriever for ``PropertyGraphIndex.as_retriever(sub_retrievers=[...])``.

    Parameters
    ----------
    graph_store : PropertyGraphStore
        Any LlamaIndex property graph store.
    embedder : TextEmbedder, optional
        Default: the offline all-MiniLM-L6-v2 (or ``embed_model``). A LlamaIndex
        ``BaseEmbedding`` or a LangChain ``Embeddings`` is taken too.
    pcst, region : settings, optional
        Paper defaults (``k_nodes=3, k_edges=5, edge_cost=0.5``) and candidate-region settings.
    edge_text : {"relation", "triple"}
        Edge texts that get embedded.
    text_format : {"paper", "triples"}
        How the subgraph is written into the node's text.
    entity_extractor : callable, optional
        ``question -> topic entities`` seeding a candidate region.
    cache_dir : path, "default" or None
        Embedding cache (see :meth:`kgcore.gretriever.GraphIndex.build`).
    include_text : bool
        Append the text of the chunks the subgraph's entities were extracted from (LlamaIndex's
        option, off by default; see :mod:`llamaindex_gretriever.source_text`).
    lazy : bool
        Embed each question's region on demand (default) instead of the whole graph on the
        first question. On a large graph the region is seeded by the topic entities
        (``entity_extractor``, by default the names written in ``[brackets]``) and at most
        ``max_region_texts`` texts are embedded per question; :meth:`build_index` embeds all.
    embed_model : BaseEmbedding, optional
        A LlamaIndex embedding model (LlamaIndex's name for it), instead of ``embedder``.
    preset : {None, "paper"}
        ``"paper"``: the paper's prizes alone; by default also the relation path the question
        plans from its topic entities (as every G-Retriever builder does).
    """

    def __init__(
        self,
        graph_store: PropertyGraphStore,
        embedder: Any = None,
        pcst: PCSTSettings | None = None,
        region: RegionSettings | None = None,
        edge_text: EdgeTextMode = "relation",
        text_format: TextFormat = "paper",
        entity_extractor: EntityExtractor | None = None,
        cache_dir: str | Path | None = "default",
        include_text: bool = False,
        progress: bool = False,
        *,
        lazy: bool = True,
        embed_model: Any = None,
        preset: str | None = None,
        **kwargs: Any,
    ) -> None:
        self._paths = preset_paths(preset)
        self._embedder = text_embedder(embedder, embed_model)
        self._pcst = pcst
        self._region = region
        self._edge_text: EdgeTextMode = edge_text
        self.text_format: TextFormat = check_text_format(text_format)
        self.entity_extractor = (
            entity_extractor if entity_extractor is not None else bracketed_entities
        )
        self.lazy = lazy
        self._cache_dir = cache_dir
        self._progress = progress
        self._core: GRetriever | None = None
        self._build_lock = threading.Lock()
        # The base class's ``add_source_text`` maps one node to one chunk; ours spans several.
        super().__init__(graph_store=graph_store, include_text=False, **kwargs)
        self.include_text = include_text

    @property
    def gretriever(self) -> GRetriever:
        """The core retriever over the store's current triplets (built on first use)."""
        with self._build_lock:
            if self._core is None:
                triples = read_property_graph(self._graph_store)
                if not triples:
                    raise EmptyGraphError("the property graph store holds no entity triplets")
                if self.lazy:
                    self._core = GRetriever.lazy(
                        triples,
                        self._embedder,
                        self._edge_text,
                        self._cache_dir,
                        pcst=self._pcst,
                        region=self._region,
                        paths=self._paths,
                    )
                else:
                    self._core = GRetriever.from_triples(
                        triples,
                        self._embedder,
                        self._edge_text,
                        self._cache_dir,
                        self._progress,
                        pcst=self._pcst,
                        region=self._region,
                        paths=self._paths,
                    )
            return self._core

    def build_index(self, progress: bool = True) -> GRetrieverPGRetriever:
        """Embed the whole graph now (cached, with a progress bar and a time estimate);
        questions then need no topic entities. On MetaQA (43k nodes) this takes minutes."""
        self.gretriever.build_index(progress=progress)
        return self

    def refresh(self) -> None:
        """Forget the index so the next query re-reads the store (cached embeddings are reused)."""
        with self._build_lock:
            self._core = None

    def retrieve_from_graph(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        question = query_bundle.query_str
        entities = list(self.entity_extractor(question))
        result = self.gretriever.retrieve(question, topic_entities=entities or None)
        node = result_to_node(result, self.text_format)
        if self.include_text:
            node = with_source_text(node, source_chunks(self._graph_store, result.edges))
        return [node]

    async def aretrieve_from_graph(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return await run_graph_work(self.retrieve_from_graph, query_bundle)
