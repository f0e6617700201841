"""CGPE for LangChain: a retriever of the explored clue paths, and a Runnable that answers.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
>>> replies = ['["Cleopatra", "director"]', "{A: director}", "{A}", "{J. Mankiewicz}"]
>>> retriever = CGPERetriever(graph=store, llm=FakeListChatModel(responses=replies))
>>> doc = retriever.invoke("who is the director of Cleopatra")[0]
>>> doc.page_content, doc.metadata["answer"]
('Cleopatra -directed by-> J. Mankiewicz', 'J. Mankiewicz')
"""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document
from pydantic import Field, model_validator

from kgcore.builder import build_method
from kgcore.methods.cgpe import CGPE, CGPEConfig
from kgcore.methods.result import MethodResult
from langchain_fasttog.base import GraphField, KGMethodChain, KGMethodRetriever
from langchain_fasttog.method_config import fold_config
from langchain_fasttog.retriever import evidence_documents


def cgpe_documents(result: MethodResult, k: int | None = None) -> list[Document]:
    """One Document per explored path (``A -rel-> B <-rel- C``), those that name the answer
    first (``metadata["supports_answer"]``), else in exploration order; the metadata holds the
    run's answer, clues, depth and cost (:meth:`~kgcore.methods.result.MethodResult.evidence`)."""
    return evidence_documents(result, k)


class CGPEFields(GraphField):
    """``graph`` and a typed ``config``, shared by the CGPE retriever and chain.

    :class:`~kgcore.methods.cgpe.CGPEConfig` fields may be given as keywords
    (``max_depth=2``); they override ``config``'s. Any other unknown keyword is refused.
    """

    config: CGPEConfig = Field(default_factory=CGPEConfig)

    @model_validator(mode="before")
    @classmethod
    def _fold_config_fields(cls, data: Any) -> Any:
        return fold_config(data, "cgpe")

    def engine(self) -> CGPE:
        engine: CGPE = build_method("cgpe", self.graph, options={"config": self.config})
        return engine


class CGPERetriever(CGPEFields, KGMethodRetriever):
    """Retrieve the knowledge paths CGPE explores for a question.

    LangChain's ``BaseRetriever`` contract; its twin for LlamaIndex is
    :class:`llamaindex_gretriever.CGPERetriever`.

    Parameters
    ----------
    graph : GraphStore
        The knowledge graph.
    llm : BaseChatModel
        Any LangChain chat model (clue extraction, information matching, answer).
    k : int, optional
        At most ``k`` documents; ``invoke(question, k=1)`` overrides it.
    config : CGPEConfig
        Every CGPE setting, prompts included (``max_depth``, ``max_branches``, ...); see
        :class:`CGPEFields`.
    """

    method: str = "cgpe"

    def to_documents(self, result: MethodResult, k: int | None) -> list[Document]:
        return cgpe_documents(result, k)


class CGPEChain(CGPEFields, KGMethodChain):
    """CGPE question answering as a Runnable; the output is the result dict (paths in ``extra``).

    Example
    -------
    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
    >>> replies = ['["Cleopatra", "director"]', "{A: director}", "{A}", "{J. Mankiewicz}"]
    >>> CGPEChain(graph=store, llm=FakeListChatModel(responses=replies)).invoke(
    ...     "who is the director of Cleopatra")["answer"]
    'J. Mankiewicz'
    """

    method: str = "cgpe"
