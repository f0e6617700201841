"""ToG (Think-on-Graph) for LangChain: a retriever of the triples it kept, and a Runnable that
answers (question in, the whole result out as a dict).

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
>>> chain = ToGChain(graph=store, llm=FakeListChatModel(responses=["Yes {J. Mankiewicz}"]))
>>> chain.invoke("who directed [Cleopatra]")["answer"]
'J. Mankiewicz'
>>> retriever = ToGRetriever(graph=store, llm=FakeListChatModel(responses=["Yes {J. Mankiewicz}"]))
>>> doc = retriever.invoke("who directed [Cleopatra]")[0]
>>> doc.page_content, doc.metadata["answer"], doc.metadata["supports_answer"]
('(Cleopatra, directed by, J. Mankiewicz)', 'J. Mankiewicz', True)
"""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document
from pydantic import Field, model_validator

from kgcore.builder import build_method
from kgcore.methods.result import MethodResult
from kgcore.methods.tog import ToG, ToGConfig
from langchain_fasttog.base import GraphField, KGMethodChain, KGMethodRetriever
from langchain_fasttog.method_config import fold_config
from langchain_fasttog.retriever import evidence_documents


class ToGFields(GraphField):
    """``graph`` and a typed ``config``, shared by the ToG retriever and chain.

    :class:`~kgcore.methods.tog.ToGConfig` fields may be given as keywords (``width=2``);
    they override ``config``'s. Any other unknown keyword is refused.
    """

    config: ToGConfig = Field(default_factory=ToGConfig)

    @model_validator(mode="before")
    @classmethod
    def _fold_config_fields(cls, data: Any) -> Any:
        return fold_config(data, "tog")

    def engine(self) -> ToG:
        engine: ToG = build_method("tog", self.graph, options={"config": self.config})
        return engine


class ToGRetriever(ToGFields, KGMethodRetriever):
    """Retrieve the triples Think-on-Graph kept on its reasoning paths, one Document each
    (``(head, relation, tail)``, as the reasoning prompt showed them), those that name the
    answer first (``metadata["supports_answer"]``); the metadata holds the run's answer,
    depth, topic entities and cost.

    LangChain's ``BaseRetriever`` contract; its twin for LlamaIndex is
    :class:`llamaindex_gretriever.ToGRetriever`.

    Parameters
    ----------
    graph : GraphStore
        The knowledge graph.
    llm : BaseChatModel
        Any LangChain chat model (relation and entity pruning, reasoning).
    k : int, optional
        At most ``k`` documents; ``invoke(question, k=1)`` overrides it.
    config : ToGConfig
        Every ToG setting, prompts included; see :class:`ToGFields`.
    """

    method: str = "tog"

    def to_documents(self, result: MethodResult, k: int | None) -> list[Document]:
        return evidence_documents(result, k)


class ToGChain(ToGFields, KGMethodChain):
    """Think-on-Graph (n-d 1-w) as a Runnable.

    The input is a question string or ``{"question": ..., "topic_entities": [...]}``; the
    output is the engine's result as a dict (answer, LLM calls, tokens, depth, timings,
    retrieved context); every LLM step appears as a child run named ``tog.<step>``.

    Parameters
    ----------
    graph : GraphStore
        The knowledge graph.
    llm : BaseChatModel
        Any LangChain chat model.
    config : ToGConfig
        Every ToG setting, prompts included (:class:`~kgcore.methods.tog.ToGConfig`); its
        fields may also be given as keywords (``width=2``), which override ``config``'s.
        Any other unknown keyword is refused.

    Example
    -------
    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
    >>> chain = ToGChain(graph=store, llm=FakeListChatModel(responses=["Yes {J. Mankiewicz}"]))
    >>> chain.invoke("who directed [Cleopatra]")["llm_calls"]
    1
    >>> ToGChain(graph=store, llm=FakeListChatModel(responses=[]), width=2).config.width
    2
    """

    method: str = "tog"
