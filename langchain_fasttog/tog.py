"""ToG (Think-on-Graph) as a LangChain Runnable: question in, the whole result out as a dict.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
>>> chain = ToGChain(graph=store, llm=FakeListChatModel(responses=["Yes {J. Mankiewicz}"]))
>>> chain.invoke("who directed [Cleopatra]")["answer"]
'J. Mankiewicz'
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from kgcore.builder import build_method
from kgcore.methods.tog import ToG, ToGConfig
from langchain_fasttog.base import GraphField, KGMethodChain
from langchain_fasttog.method_config import fold_config


class ToGChain(GraphField, KGMethodChain):
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
    config: ToGConfig = Field(default_factory=ToGConfig)

    @model_validator(mode="before")
    @classmethod
    def _fold_config_fields(cls, data: Any) -> Any:
        return fold_config(data, "tog")

    def engine(self) -> ToG:
        engine: ToG = build_method("tog", self.graph, options={"config": self.config})
        return engine
