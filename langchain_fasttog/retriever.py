"""FastToG as a LangChain retriever: the communities on the reasoning chains, as Documents.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([
...     ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
...     ("All About Eve", "directed_by", "Joseph L. Mankiewicz")])
>>> retriever = FastToGRetriever(
...     graph=store, llm=FakeListChatModel(responses=["{1}", "{All About Eve}"]),
...     config=FastToGConfig(max_community_size=2))
>>> docs = retriever.invoke("which films share the director of [Cleopatra]")
>>> docs[0].metadata["answer"], docs[0].metadata["chain"]
('All About Eve', 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from kgcore.graph.store import GraphStore
from kgcore.methods.fasttog import FastToG, FastToGConfig, FastToGResult
from kgcore.text.triple2text import CommunityTextualizer
from langchain_fasttog.llm import LangChainLLM


def result_to_documents(result: FastToGResult, k: int | None = None) -> list[Document]:
    """Chain communities as Documents, in the order they were chosen (depth, then chain)."""
    ordered = sorted(result.communities(), key=lambda c: (c.depth, c.chain))
    docs = [
        Document(
            page_content=c.text,
            metadata={
                "chain": c.chain,
                "depth": c.depth,
                "entities": list(c.nodes),
                "triples": [list(t) for t in (*c.links, *c.triples)],
                "modularity": c.modularity,
                "answer": result.answer,
                "topic_entities": list(result.topic_entities),
                "fell_back": result.fell_back,
                "source": "fasttog",
            },
        )
        for c in ordered
    ]
    return docs if k is None else docs[:k]


class FastToGRetriever(BaseRetriever):
    """Retrieve the knowledge-graph communities FastToG reasons over.

    Parameters
    ----------
    graph : GraphStore
        The knowledge graph (``InMemoryGraphStore``, ``Neo4jGraphStore``, ...).
    llm : BaseChatModel
        Any LangChain chat model; it prunes communities and reasons.
    config : FastToGConfig
        Width, depth, community size, algorithm, seed, ... (paper defaults).
    k : int, optional
        Return at most ``k`` documents; ``invoke(question, k=1)`` overrides it per call.
    textualizer : CommunityTextualizer, optional
        Community-to-text conversion (Triple2Text by default).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    graph: Any
    llm: BaseChatModel
    config: FastToGConfig = Field(default_factory=FastToGConfig)
    k: int | None = None
    textualizer: Any = None

    def _engine(self) -> FastToG:
        if not isinstance(self.graph, GraphStore):
            raise TypeError(
                f"graph must implement kgcore GraphStore, got {type(self.graph).__name__}"
            )
        textualizer: CommunityTextualizer | None = self.textualizer
        return FastToG(self.graph, self.config, textualizer)

    def _k(self, k: int | None) -> int | None:
        k = self.k if k is None else k
        if k is not None and k < 1:
            raise ValueError("k must be >= 1")
        return k

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        topic_entities: Sequence[str] | None = None,
    ) -> list[Document]:
        llm = LangChainLLM(self.llm, callbacks=run_manager.get_child())
        result = self._engine().run(query, llm, topic_entities)
        return result_to_documents(result, self._k(k))

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        topic_entities: Sequence[str] | None = None,
    ) -> list[Document]:
        llm = LangChainLLM(self.llm, callbacks=run_manager.get_child())
        result = await self._engine().arun(query, llm, topic_entities)
        return result_to_documents(result, self._k(k))
