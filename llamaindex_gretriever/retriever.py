"""``GRetrieverRetriever``: G-Retriever as a LlamaIndex retriever.

It returns one :class:`~llama_index.core.schema.NodeWithScore` per question whose
:class:`~llama_index.core.schema.TextNode` holds the textualized PCST subgraph; the node ids,
triples, prizes, PCST objective and how each topic entity was linked (``entity_links``) are in
its metadata (hidden from the LLM and the embedder).

:meth:`GRetrieverRetriever.from_triples` and :meth:`~GRetrieverRetriever.from_graph` embed
lazily: a question embeds only its candidate region (the topic entities' neighbourhood, at most
``RegionSettings.max_region_texts`` texts), cached by text in the user cache
(``~/.cache/kg-retrievers/``), so the first question on MetaQA answers in seconds and the cache
grows with use. :meth:`~GRetrieverRetriever.build_index` embeds the whole graph up front.

The topic entities of a question are the caller's, else the ``entity_extractor``'s (by default
the names in ``[brackets]``), else the question itself when it is a node's name; a graph that
is not searched whole then links a plain question without a model (the retriever has none): the
node names it writes as the graph spells them (``who starred in Giant``), else the question read
as one name by the strict rules (a misspelt ``Ruggero Raimondy``), else
:class:`~kgcore.exceptions.EntityNotFoundError` naming the closest names (answered as
``on_unknown_entity`` says). For a model's extraction, pass ``entity_extractor``.
LlamaIndex's names are accepted where they mean the same thing: ``embed_model`` (a
``BaseEmbedding``), ``similarity_top_k`` (the ``k`` nodes given prizes by similarity) and
``path_depth`` (the region's hops).

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

import hashlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.graph_stores.types import PropertyGraphStore
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from kgcore.agent_text import NO_TOPIC_TEXT, name_as_topic, unknown_entity_text
from kgcore.concurrency import InFlightLimit, run_graph_work
from kgcore.embeddings import TextEmbedder
from kgcore.exceptions import ConfigurationError, EntityNotFoundError
from kgcore.foreign_graphs import as_graph_store
from kgcore.gretriever.planned import preset_paths
from kgcore.gretriever.result import GRetrieverResult
from kgcore.gretriever.retriever import GRetriever, PCSTSettings, RegionSettings
from kgcore.gretriever.textgraph import EdgeTextMode
from kgcore.gretriever.textualize import TextFormat, check_text_format
from kgcore.linking import bracketed_entities, link_entity_details
from llamaindex_gretriever.embeddings import text_embedder
from llamaindex_gretriever.source_text import source_chunks, with_source_text

#: What the retriever does when a topic entity is not in the graph.
UNKNOWN_ENTITY_MODES = ("message", "empty", "raise")
#: Extracts topic entities from a question (e.g. :func:`kgcore.linking.bracketed_entities`).
EntityExtractor = Callable[[str], Sequence[str]]


def result_to_node(
    result: GRetrieverResult,
    text_format: TextFormat = "paper",
    entity_links: Sequence[dict[str, Any]] = (),
) -> NodeWithScore:
    """Wrap a :class:`~kgcore.gretriever.GRetrieverResult` as a scored ``TextNode``.

    The score is the PCST objective (net prize of the tree). Every metadata key is excluded
    from the LLM and embedding text, so the prompt holds only the textualized graph.
    """
    metadata: dict[str, Any] = {"retriever": "g-retriever", "text_format": text_format}
    metadata.update(result.to_metadata())
    metadata["entity_links"] = list(entity_links)
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


def not_found_node(err: EntityNotFoundError) -> NodeWithScore:
    """A node telling an agent which entity is unknown and which names are close."""
    metadata = {"error": "entity_not_found", "entity": err.name, "suggestions": err.suggestions}
    node = TextNode(
        id_=f"gretriever-unknown-{hashlib.sha256(err.name.encode()).hexdigest()[:16]}",
        text=unknown_entity_text(err),
        metadata=metadata,
        excluded_llm_metadata_keys=list(metadata),
        excluded_embed_metadata_keys=list(metadata),
    )
    return NodeWithScore(node=node, score=0.0)


def _embedder(embedder: Any, embed_model: Any) -> TextEmbedder | None:
    return text_embedder(embedder, embed_model)


def _top_k(pcst: PCSTSettings | None, similarity_top_k: int | None) -> PCSTSettings | None:
    if similarity_top_k is None:
        return pcst
    if pcst is not None and pcst != PCSTSettings():
        raise ConfigurationError("give pcst=PCSTSettings(k_nodes=...) or similarity_top_k")
    return PCSTSettings(k_nodes=similarity_top_k)


def _depth(kwargs: dict[str, Any], path_depth: int | None) -> dict[str, Any]:
    if path_depth is None:
        return kwargs
    if kwargs.get("hops") is not None:
        raise ConfigurationError("give hops or path_depth, not both")
    return {**kwargs, "hops": path_depth}


GRETRIEVER_TOOL_DESCRIPTION = (
    "Finds the knowledge-graph facts about a question, as (head, relation, tail) triples. "
    "Write the entities the question is about in [brackets], e.g. 'who directed [Cleopatra]', "
    "or pass them as topic_entities. An unknown name gets the closest names in the graph."
)


class GRetrieverRetriever(BaseRetriever):
    """LlamaIndex retriever returning the G-Retriever subgraph of a question.

    LlamaIndex's ``BaseRetriever`` contract; its twin for LangChain is
    :class:`langchain_fasttog.GRetrieverRetriever`.

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
    include_text : bool
        Append the text of the chunks the subgraph's entities were extracted from (LlamaIndex's
        option, off by default). Needs ``source_graph_store``, which :meth:`from_graph` sets
        when given a ``PropertyGraphStore``.
    source_graph_store : PropertyGraphStore, optional
        Where the source chunks are read from.
    on_unknown_entity : {"message", "empty", "raise"}
        When a topic entity is not in the graph: one node whose text names it and the closest
        names (``"message"``, the default, what an agent can retry with; its metadata holds
        ``error="entity_not_found"``, ``entity`` and ``suggestions``), no node (``"empty"``),
        or :class:`~kgcore.exceptions.EntityNotFoundError` (``"raise"``).
    max_concurrency : int, optional
        Questions retrieved at once at most (``None``: no limit); the others wait their turn.

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
        include_text: bool = False,
        source_graph_store: PropertyGraphStore | None = None,
        on_unknown_entity: str = "message",
        max_concurrency: int | None = None,
    ) -> None:
        self.in_flight = InFlightLimit(max_concurrency)
        if include_text and source_graph_store is None:
            raise ConfigurationError(
                "include_text needs the LlamaIndex PropertyGraphStore holding the source chunks: "
                "build the retriever with GRetrieverRetriever.from_graph(property_graph_store, "
                "include_text=True)"
            )
        if not isinstance(retriever, GRetriever):
            raise ConfigurationError(
                f"retriever must be a kgcore GRetriever, got {type(retriever).__name__}: build "
                "one with GRetrieverRetriever.from_triples(...) or .from_graph(...)"
            )
        self.gretriever = retriever
        self.text_format: TextFormat = check_text_format(text_format)
        self.entity_extractor = entity_extractor
        self.hops = hops
        self.include_text = include_text
        self.source_graph_store = source_graph_store
        if on_unknown_entity not in UNKNOWN_ENTITY_MODES:
            raise ConfigurationError(
                f"on_unknown_entity must be one of {UNKNOWN_ENTITY_MODES}, "
                f"got {on_unknown_entity!r}"
            )
        self.on_unknown_entity = on_unknown_entity
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
        *,
        lazy: bool = True,
        embed_model: Any = None,
        similarity_top_k: int | None = None,
        path_depth: int | None = None,
        preset: str | None = None,
        **kwargs: Any,
    ) -> GRetrieverRetriever:
        """A retriever over ``(head, relation, tail)`` triples.

        Parameters
        ----------
        triples : iterable of (head, relation, tail)
            The knowledge graph.
        embedder : TextEmbedder, optional
            Default: the offline all-MiniLM-L6-v2 (or ``embed_model``). A LlamaIndex
            ``BaseEmbedding`` or a LangChain ``Embeddings`` is taken too.
        edge_text, cache_dir, pcst, region :
            See :class:`~kgcore.gretriever.GRetriever`; the cache is kept under ``cache_dir``.
        progress : bool
            Progress bar when the whole graph is embedded (``lazy=False`` or :meth:`build_index`).
        lazy : bool
            Embed each question's region on demand (default) instead of the whole graph now.
        embed_model : BaseEmbedding, optional
            A LlamaIndex embedding model (or a LangChain ``Embeddings``), instead of
            ``embedder``.
        similarity_top_k : int, optional
            LlamaIndex's name for ``PCSTSettings.k_nodes``.
        path_depth : int, optional
            LlamaIndex's name for ``hops``.
        preset : {None, "paper"}
            ``"paper"``: the paper's prizes alone; by default the relation paths the question
            plans from its topic entities are prized too (:mod:`kgcore.gretriever.planned`).
        kwargs :
            ``__init__``'s ``text_format``, ``entity_extractor`` (default: names in
            ``[brackets]``), ``hops``, ``callback_manager``.
        """
        embedder = _embedder(embedder, embed_model)
        pcst = _top_k(pcst, similarity_top_k)
        kwargs = _depth(kwargs, path_depth)
        kwargs.setdefault("entity_extractor", bracketed_entities)
        paths = preset_paths(preset)
        if lazy:
            core = GRetriever.lazy(
                triples, embedder, edge_text, cache_dir, pcst=pcst, region=region, paths=paths
            )
        else:
            core = GRetriever.from_triples(
                triples, embedder, edge_text, cache_dir, progress, pcst, region, paths
            )
        return cls(core, **kwargs)

    @classmethod
    def from_graph(
        cls,
        graph: Any,
        embedder: TextEmbedder | None = None,
        edge_text: EdgeTextMode = "relation",
        cache_dir: str | Path | None = "default",
        pcst: PCSTSettings | None = None,
        region: RegionSettings | None = None,
        *,
        embed_model: Any = None,
        similarity_top_k: int | None = None,
        path_depth: int | None = None,
        preset: str | None = None,
        **kwargs: Any,
    ) -> GRetrieverRetriever:
        """A lazy retriever over a graph object: a kgcore ``GraphStore``, a LlamaIndex
        ``PropertyGraphStore`` (``Neo4jPropertyGraphStore`` is read in place), LangChain's
        ``NetworkxEntityGraph`` or langchain-neo4j's ``Neo4jGraph``
        (see :func:`kgcore.foreign_graphs.as_graph_store`). Other parameters as
        :meth:`from_triples`; ``include_text=True`` (a ``PropertyGraphStore`` only) appends
        the source chunks' text.
        """
        core = GRetriever.lazy(
            as_graph_store(graph),
            _embedder(embedder, embed_model),
            edge_text,
            cache_dir,
            pcst=_top_k(pcst, similarity_top_k),
            region=region,
            paths=preset_paths(preset),
        )
        kwargs.setdefault("entity_extractor", bracketed_entities)
        if isinstance(graph, PropertyGraphStore):
            kwargs.setdefault("source_graph_store", graph)
        return cls(core, **_depth(kwargs, path_depth))

    def build_index(self, progress: bool = True) -> GRetrieverRetriever:
        """Embed the whole graph now (cached), printing an estimate of the time and a progress
        bar; on MetaQA (43k nodes) this takes minutes, against seconds for a lazy question."""
        self.gretriever.build_index(progress=progress)
        return self

    def topic_entities(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> list[str]:
        """The given topic entities, else the extractor's, else the question itself when it is
        a node's name (a bare ``Ruggero Raimondi``, see :func:`kgcore.agent_text.name_as_topic`),
        else, on a graph not searched whole, the node names the question writes or the
        question as one name for the strict fuzzy rule
        (:meth:`~kgcore.gretriever.GRetriever.question_topics`; no model is asked).
        ``[]``: the graph is searched whole (or seeded by its vector index)."""
        if topic_entities:
            return list(topic_entities)
        entities = list(self.entity_extractor(question)) if self.entity_extractor else []
        store = self.gretriever.store
        return (
            entities or name_as_topic(store, question) or self.gretriever.question_topics(question)
        )

    def retrieve_result(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> GRetrieverResult:
        """The core result for ``question`` (topic entities: see :meth:`topic_entities`)."""
        entities = self.topic_entities(question, topic_entities)
        return self.gretriever.retrieve(question, topic_entities=entities or None, hops=self.hops)

    def entity_links(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """How each topic entity of ``question`` (:meth:`topic_entities`) links to a node."""
        links = []
        for mention in self.topic_entities(question, topic_entities):
            try:
                links.append(link_entity_details(self.gretriever.store, mention).to_dict())
            except EntityNotFoundError:
                continue
        return links

    def retrieve_node(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> NodeWithScore:
        """The subgraph of ``question`` as a scored node (the one :meth:`retrieve` returns).

        Raises :class:`~kgcore.exceptions.EntityNotFoundError` for a topic entity that is not
        in the graph (``retrieve`` answers it as ``on_unknown_entity`` says).
        """
        result = self.retrieve_result(question, topic_entities)
        links = self.entity_links(question, topic_entities)
        node = result_to_node(result, self.text_format, links)
        if self.include_text and self.source_graph_store is not None:
            node = with_source_text(node, source_chunks(self.source_graph_store, result.edges))
        return node

    def as_query_engine(self, llm: Any = None, **kwargs: Any) -> Any:
        """A query engine whose ``llm`` (LlamaIndex's ``Settings.llm`` when ``None``) answers
        from this retriever's subgraph (:func:`~llamaindex_gretriever.graph_query_engine`)."""
        from llamaindex_gretriever.prompts import graph_query_engine

        return graph_query_engine(self, llm=llm, **kwargs)

    def search_text(self, query: str, topic_entities: Sequence[str] | None = None) -> str:
        """The subgraph of ``query`` as text, or what an agent should do instead: the closest
        names for an unknown one, :data:`~kgcore.agent_text.NO_TOPIC_TEXT` when a lazy graph
        has no topic entity to seed the region."""
        topics = self.topic_entities(query, topic_entities)
        try:
            node = self.retrieve_node(query, topics)
        except EntityNotFoundError as err:
            return unknown_entity_text(err)
        except ConfigurationError:
            if topics:
                raise
            return NO_TOPIC_TEXT  # a lazy retriever needs a topic entity to seed the region
        text = node.node.get_content()
        return text or "The knowledge graph holds no facts on this question."

    def as_tool(
        self, name: str = "knowledge_graph", description: str = GRETRIEVER_TOOL_DESCRIPTION
    ) -> Any:
        """This retriever as an agent's ``FunctionTool``: ``query`` and optional
        ``topic_entities`` in, the subgraph's triples as text out (:meth:`search_text`: an
        unknown name is answered with the closest names); ``tool.fn`` for other frameworks."""
        from llama_index.core.tools import FunctionTool

        def search(query: str, topic_entities: list[str] | None = None) -> str:
            """Knowledge-graph facts about the query; entities in [brackets] or topic_entities."""
            return self.search_text(query, topic_entities)

        async def asearch(query: str, topic_entities: list[str] | None = None) -> str:
            """Knowledge-graph facts about the query; entities in [brackets] or topic_entities."""
            return await run_graph_work(self.search_text, query, topic_entities)

        return FunctionTool.from_defaults(
            fn=search, async_fn=asearch, name=name, description=description
        )

    def _nodes(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        try:
            return [self.retrieve_node(query_bundle.query_str)]
        except EntityNotFoundError as err:
            if self.on_unknown_entity == "raise":
                raise
            return [] if self.on_unknown_entity == "empty" else [not_found_node(err)]

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        with self.in_flight.hold():
            return self._nodes(query_bundle)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        # Graph reads and embedding run in the graph executor; a Bolt read is awaited.
        async with self.in_flight.ahold():
            return await run_graph_work(self._nodes, query_bundle)
