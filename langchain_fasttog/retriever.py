"""FastToG as a LangChain retriever: the communities on the reasoning chains, as Documents.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.methods.fasttog import FastToGConfig
>>> store = InMemoryGraphStore.from_triples([
...     ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
...     ("All About Eve", "directed_by", "Joseph L. Mankiewicz")])
>>> retriever = FastToGRetriever(
...     graph=store, llm=FakeListChatModel(responses=["{All About Eve}"]),
...     config=FastToGConfig(max_community_size=2))
>>> docs = retriever.invoke("which films share the director of [Cleopatra]")
>>> docs[0].metadata["answer"], docs[0].metadata["chain"]
('All About Eve', 0)
"""

from __future__ import annotations

from langchain_core.documents import Document

from kgcore.methods.fasttog import FastToGResult
from kgcore.methods.result import MethodResult
from langchain_fasttog.base import KGMethodRetriever
from langchain_fasttog.fasttog_fields import FastToGFields


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
                "grounded": result.grounded,
                "source": "fasttog",
            },
        )
        for c in ordered
    ]
    return docs if k is None else docs[:k]


class FastToGRetriever(FastToGFields, KGMethodRetriever):
    """Retrieve the knowledge-graph communities FastToG reasons over.

    Parameters
    ----------
    graph : GraphStore
        The knowledge graph (``InMemoryGraphStore``, ``Neo4jGraphStore``, ...).
    llm : BaseChatModel
        Any LangChain chat model; it prunes communities and reasons.
    config : FastToGConfig
        Width, depth, community size, algorithm, seed, ... (this project's defaults).
    preset : str, optional
        ``"paper"``: the paper's FastToG as written (``FastToGConfig.paper()``, its
        temperatures and token caps sent with every call); ``"metaqa"``: the movie
        demonstrations. Not with ``config``; fields given directly override it.
    k : int, optional
        Return at most ``k`` documents; ``invoke(question, k=1)`` overrides it per call.
    textualizer : CommunityTextualizer, optional
        Community-to-text conversion (Triple2Text by default).
    embeddings : langchain_core.embeddings.Embeddings, optional
        Ranks the first communities: with it, the default ``first_choice="auto"`` chooses
        them by similarity, with no LLM call; without it, the LLM chooses (the paper's).
    """

    def to_documents(self, result: MethodResult, k: int | None) -> list[Document]:
        assert isinstance(result, FastToGResult)
        return result_to_documents(result, k)
