"""G-Retriever for LangChain: a retriever of the facts of the question's Prize-Collecting Steiner
Tree (no model asked), and a Runnable that answers over them (the method, one LLM call).

The retriever needs no chat model: G-Retriever's retrieval is the question's embedding, prizes
and PCST. Pair it with your own model in a chain, or use :class:`GRetrieverChain` for the
method's own answer (linking, retrieval, one answer call grounded in the subgraph).

Example
-------
>>> from langchain_core.embeddings import DeterministicFakeEmbedding  # any embedding model
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
>>> retriever = GRetrieverRetriever(graph=store, embeddings=DeterministicFakeEmbedding(size=8))
>>> doc = retriever.invoke("who directed [Cleopatra]")[0]
>>> doc.page_content, doc.metadata["triples"]
('(Cleopatra, directed by, J. Mankiewicz)', [['Cleopatra', 'directed_by', 'J. Mankiewicz']])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr, field_validator, model_validator

from kgcore.agent_text import name_as_topic
from kgcore.builder import build_method
from kgcore.concurrency import run_graph_work
from kgcore.exceptions import ConfigurationError, EntityNotFoundError
from kgcore.linking import bracketed_entities
from kgcore.methods.kernel import triple_text
from kgcore.types import Triple
from langchain_fasttog.base import DocumentOptions, GraphField, KGMethodChain
from langchain_fasttog.embeddings import as_text_embedder
from langchain_fasttog.run_fields import ConcurrencyFields

if TYPE_CHECKING:
    from kgcore.gretriever.result import GRetrieverResult
    from kgcore.methods.gretriever import GRetrieverQA

#: GRetrieverQA's own settings, besides the PCST and region settings.
_ANSWER_SETTINGS = (
    "text_format",
    "max_tokens",
    "max_graph_tokens",
    "chars_per_token",
    "verbalizer",
)


def gretriever_setting_names() -> tuple[str, ...]:
    """Every G-Retriever setting the adapters take as a keyword: the answer's, then
    :class:`~kgcore.gretriever.PCSTSettings`' and :class:`~kgcore.gretriever.RegionSettings`'."""
    from kgcore.gretriever import PCSTSettings, RegionSettings  # 0.5 s: not at import

    return (*_ANSWER_SETTINGS, *PCSTSettings.setting_names(), *RegionSettings.setting_names())


def subgraph_documents(
    retrieved: GRetrieverResult, verbalize: Any, k: int | None = None
) -> list[Document]:
    """One Document per edge of the subgraph (``(head, relation, tail)`` as the answer prompt
    writes it), the most relevant first (:meth:`~kgcore.gretriever.GRetrieverResult.
    edge_relevance`); a subgraph of one node gives that node."""
    common = {"seeds": list(retrieved.seeds), "objective": retrieved.objective}
    relevance = retrieved.edge_relevance()
    order = sorted(range(retrieved.num_edges), key=lambda i: -relevance[i])
    docs = [
        Document(
            page_content=triple_text(Triple(*retrieved.edges[i]), verbalize),
            metadata={
                **common,
                "triples": [list(retrieved.edges[i])],
                "relevance": relevance[i],
                "source": "gretriever",
            },
        )
        for i in order
    ]
    if not docs:
        docs = [
            Document(page_content=text, metadata={**common, "triples": [], "source": "gretriever"})
            for text in retrieved.node_texts
        ]
    return docs if k is None else docs[:k]


def check_settings(options: dict[str, Any]) -> None:
    """Check G-Retriever settings without building anything (an out-of-range value is an
    :class:`~kgcore.exceptions.InvalidSettingError` naming it)."""
    from kgcore.gretriever import PCSTSettings, RegionSettings
    from kgcore.methods.gretriever import GRetrieverQAConfig

    def of(config: Any) -> dict[str, Any]:
        return {k: v for k, v in options.items() if k in config.setting_names()}

    GRetrieverQAConfig(**of(GRetrieverQAConfig))
    PCSTSettings(**of(PCSTSettings))
    RegionSettings(**of(RegionSettings))


class GRetrieverFields(GraphField):
    """``graph``, ``embeddings`` and the G-Retriever settings (``options``), and the engine
    built from them once (embedding a small graph whole is the slow part).

    The settings may be given as keywords (``k_nodes=5``, ``hops=1``, ``text_format="paper"``,
    see :func:`gretriever_setting_names`); they are checked when the object is built. Any
    other unknown keyword is refused. ``embeddings`` is a LangChain ``Embeddings`` or a
    kg-retrievers ``TextEmbedder`` (default: the offline all-MiniLM-L6-v2, the ``embeddings``
    extra).
    """

    embeddings: Any = None
    options: dict[str, Any] = Field(default_factory=dict)
    method: str = "gretriever"
    _engine: Any = PrivateAttr(default=None)

    @field_validator("embeddings")
    @classmethod
    def _check_embeddings(cls, value: Any) -> Any:
        as_text_embedder(value)  # a clear error for anything else
        return value

    @model_validator(mode="before")
    @classmethod
    def _fold_settings(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        names = set(gretriever_setting_names())
        options = dict(data.get("options") or {})
        unknown = sorted(set(options) - names)
        if unknown:
            raise ConfigurationError(f"unknown G-Retriever setting(s): {', '.join(unknown)}")
        options.update({k: v for k, v in data.items() if k in names})
        check_settings(options)
        return {**{k: v for k, v in data.items() if k not in names}, "options": options}

    def engine(self) -> GRetrieverQA:
        if self._engine is None:
            self._engine = build_method(
                "gretriever",
                self.graph,
                embeddings=as_text_embedder(self.embeddings),
                options=self.options,
            )
        return self._engine


class GRetrieverRetriever(GRetrieverFields, ConcurrencyFields, DocumentOptions, BaseRetriever):
    """Retrieve the facts of G-Retriever's subgraph for a question, one Document per edge,
    the most relevant first; no chat model is asked.

    LangChain's ``BaseRetriever`` contract; its twin for LlamaIndex is
    :class:`llamaindex_gretriever.GRetrieverRetriever`.

    The topic entities seed the subgraph's region: the caller's (``invoke(q,
    topic_entities=[...])``), else the names in ``[brackets]``, else the query itself when it
    is a node's name; a small graph is searched whole without any (the paper's G-Retriever),
    a large one links the node names the question writes.

    Parameters
    ----------
    graph : GraphStore
        The knowledge graph (adapted from LangChain's and LlamaIndex's graphs).
    embeddings : Embeddings or TextEmbedder, optional
        The embedding model (default: the offline all-MiniLM-L6-v2).
    k : int, optional
        At most ``k`` documents; ``invoke(question, k=1)`` overrides it.
    on_unknown_entity : {"message", "empty", "raise"}
        A topic entity not in the graph: one Document naming it and the closest names, none,
        or :class:`~kgcore.exceptions.EntityNotFoundError`.
    options, or keywords :
        G-Retriever's settings (``k_nodes``, ``k_edges``, ``edge_cost``, ``hops``, ...).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _no_model(cls, data: Any) -> Any:
        if isinstance(data, dict) and "llm" in data:
            raise ConfigurationError(
                "GRetrieverRetriever asks no chat model (its retrieval is embeddings and PCST): "
                "pair it with your model in a chain, or use GRetrieverChain for the method's answer"
            )
        return data

    def _topics(self, query: str, topic_entities: Sequence[str] | None) -> list[str]:
        given = list(topic_entities or bracketed_entities(query))
        return given or name_as_topic(self.graph, query)

    def _documents(
        self, query: str, k: int | None, topic_entities: Sequence[str] | None
    ) -> list[Document]:
        k = self._k(k)
        engine = self.engine()
        topics = self._topics(query, topic_entities)
        try:
            retrieved = engine.retriever.retrieve(query, topic_entities=topics or None)
        except EntityNotFoundError as err:
            return self._unknown_entity(err)
        docs = subgraph_documents(retrieved, engine.verbalizer, k)
        return self._with_links(docs, query, topics)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        topic_entities: Sequence[str] | None = None,
    ) -> list[Document]:
        with self.in_flight.hold():
            return self._documents(query, k, topic_entities)

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        topic_entities: Sequence[str] | None = None,
    ) -> list[Document]:
        # Graph reads and embedding run in the graph executor; a Bolt read is awaited.
        async with self.in_flight.ahold():
            return await run_graph_work(self._documents, query, k, topic_entities)


class GRetrieverChain(GRetrieverFields, KGMethodChain):
    """G-Retriever question answering as a Runnable: entity linking, the PCST subgraph, then
    one answer call over its facts, grounded in its nodes
    (:class:`~kgcore.methods.gretriever.GRetrieverQA`).

    The input is a question string or ``{"question": ..., "topic_entities": [...]}``; the
    output is the result as a dict (``answer``, ``context``: the subgraph's facts the model
    read, ``llm_calls``, ...); the LLM step is a child run named ``gretriever.<step>``.

    Parameters
    ----------
    graph : GraphStore
        The knowledge graph.
    llm : BaseChatModel
        Any LangChain chat model.
    embeddings : Embeddings or TextEmbedder, optional
        The embedding model (default: the offline all-MiniLM-L6-v2).
    options, or keywords :
        G-Retriever's settings, as for :class:`GRetrieverRetriever`, and the answer's
        (``text_format``, ``max_tokens``, ``max_graph_tokens``).

    Example
    -------
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
    >>> chain = GRetrieverChain(graph=store, llm=FakeListChatModel(responses=["{J. Mankiewicz}"]),
    ...                         embeddings=DeterministicFakeEmbedding(size=8))
    >>> out = chain.invoke("who directed [Cleopatra]")
    >>> out["answer"], out["context"]
    ('J. Mankiewicz', '(Cleopatra, directed by, J. Mankiewicz)')
    """
