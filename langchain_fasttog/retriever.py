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
>>> [(d.metadata["kind"], d.metadata["chain"]) for d in docs]  # the start community first
[('start', -1), ('chain', 0), ('chain', 1)]
>>> docs[1].metadata["answer"], docs[1].metadata["llm_calls"]
('All About Eve', 1)
>>> docs[1].page_content  # the followed path's facts: the evidence of the answer
'Cleopatra; All About Eve directed by Joseph L. Mankiewicz.'
>>> documents_to_result("which films share the director of [Cleopatra]", docs).llm_calls
1
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.documents import Document

from kgcore.methods.fasttog import ChainCommunity, FastToGResult
from kgcore.methods.result import MethodResult
from kgcore.types import Triple
from kgcore.validation import UNKNOWN
from langchain_fasttog.base import KGMethodRetriever
from langchain_fasttog.fasttog_fields import FastToGFields


def evidence_documents(result: MethodResult, k: int | None = None) -> list[Document]:
    """A method result's evidence (:meth:`~kgcore.methods.result.MethodResult.evidence`) as
    Documents, those that name the answer first (``metadata["supports_answer"]``)."""
    docs = [Document(page_content=e.text, metadata=e.metadata) for e in result.evidence()]
    return docs if k is None else docs[:k]


def result_to_documents(result: FastToGResult, k: int | None = None) -> list[Document]:
    """The communities FastToG reasoned over as Documents: the start community
    (``metadata["kind"] == "start"``, ``chain`` -1, ``depth`` 0: the topic's facts, the topic
    facts and followed paths that often decide the answer), then the chains' communities (by
    depth, then chain), those that name the answer first (``supports_answer``).

    Each Document's metadata also carries the run's answer and cost (``llm_calls``,
    ``prompt_tokens``, ``completion_tokens``), so :func:`documents_to_result` rebuilds a result
    whose picture and figures are the run's.
    """
    return evidence_documents(result, k)


def documents_to_result(question: str, docs: Sequence[Document]) -> FastToGResult:
    """The :class:`~kgcore.methods.fasttog.FastToGResult` that FastToGRetriever's Documents
    describe: its start community, chains, answer, topic entities, LLM calls and tokens (for
    ``.draw(path)`` after the retriever ran as an agent's tool). No Documents: an ``Unknown``
    answer, no chains.

    The candidates the LLM pruned are not in the Documents, so the picture has none.
    """
    chains: dict[int, list[ChainCommunity]] = {}
    start: ChainCommunity | None = None
    for doc in docs:
        m = doc.metadata
        if m.get("kind") == "answers":  # the reached answer set: no community
            continue
        triples = tuple((str(h), str(r), str(t)) for h, r, t in m["triples"])
        community = ChainCommunity(
            int(m["chain"]),
            int(m["depth"]),
            tuple(m["entities"]),
            tuple(Triple(*t) for t in triples),
            (),
            doc.page_content,
        )
        if community.chain == -1:
            start = community
        else:
            chains.setdefault(community.chain, []).append(community)
    first = docs[0].metadata if docs else {}
    return FastToGResult(
        question=question,
        answer=str(first["answer"]) if docs and first.get("answered", True) else UNKNOWN,
        method="fasttog",
        llm_calls=int(first.get("llm_calls") or 0),
        prompt_tokens=first.get("prompt_tokens"),
        completion_tokens=first.get("completion_tokens"),
        fell_back=bool(first.get("fell_back", False)),
        topic_entities=list(first.get("topic_entities", [])),
        start=start,
        chains=[sorted(chains[c], key=lambda x: x.depth) for c in sorted(chains)],
        depth=max((int(d.metadata["depth"]) for d in docs), default=0),
    )


class FastToGRetriever(FastToGFields, KGMethodRetriever):
    """Retrieve the knowledge-graph communities FastToG reasons over.

    LangChain's ``BaseRetriever`` contract; its twin for LlamaIndex is
    :class:`llamaindex_gretriever.FastToGRetriever`.

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
        Ranks communities and topic facts by similarity (the default ``first_choice="auto"``,
        no LLM call); without it, the offline all-MiniLM-L6-v2 does when the ``embeddings``
        extra is installed, as in ``kgqa``, else the LLM chooses (one warning says so).
    """

    def to_documents(self, result: MethodResult, k: int | None) -> list[Document]:
        assert isinstance(result, FastToGResult)
        return result_to_documents(result, k)
