"""A method chain as an agent's tool (``FastToGChain(...).as_tool()``): the question in, the
answer out as text for the agent, the whole result as the tool message's artifact.

An unknown name does not end the agent's run: the tool answers with the closest names in the
graph (:func:`kgcore.agent_text.unknown_entity_text`), which the agent can ask again with. A
question that is a bare entity name (``Ruggero Raimondi``) is about that entity.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> from kgcore.graph import InMemoryGraphStore
>>> from langchain_fasttog import ToGChain
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
>>> tool = ToGChain(graph=store, llm=FakeListChatModel(responses=["Yes {J. Mankiewicz}"])
...                 ).as_tool(name="kg")
>>> tool.invoke({"question": "who directed [Cleopatra]"})
'J. Mankiewicz'
>>> tool.invoke({"question": "who directed [Cleopatre 1963]"})[:46]
"No entity named 'Cleopatre 1963' is in the kno"
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import Callbacks
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from kgcore.agent_text import answer_text, name_as_topic, unknown_entity_text
from kgcore.concurrency import run_graph_work
from kgcore.exceptions import EntityNotFoundError
from kgcore.graph.store import GraphStore

__all__ = ["MethodToolInput", "method_tool"]

Reply = tuple[str, dict[str, Any]]
#: A method's chain (:class:`~langchain_fasttog.base.KGMethodChain`): a Runnable from a
#: question and its topic entities to the result dict, with the method's name as ``method``.
MethodChain = Runnable[Any, dict[str, Any]]


class MethodToolInput(BaseModel):
    """The tool's arguments."""

    question: str = Field(
        description="the question, with the entities it is about in [brackets], e.g. "
        "'who directed [Cleopatra]'"
    )
    topic_entities: list[str] | None = Field(
        default=None, description="names of the graph entities the question is about (optional)"
    )


def _description(chain: MethodChain) -> str:
    method = getattr(chain, "method", chain.get_name())
    return (
        f"Answers a question from the knowledge graph ({method}). Write the entities the "
        "question is about in [brackets], e.g. 'who directed [Cleopatra]', or pass them as "
        "topic_entities. An unknown name gets the closest names in the graph."
    )


def _input(chain: MethodChain, question: str, topic_entities: list[str] | None) -> Any:
    graph = getattr(chain, "graph", None)
    if not topic_entities and isinstance(graph, GraphStore):
        topic_entities = name_as_topic(graph, question) or None
    return {"question": question, "topic_entities": topic_entities}


def _reply(result: dict[str, Any]) -> Reply:
    answered = result.get("answered")
    text = answer_text(
        str(result["answer"]),
        bool(result.get("fell_back")),
        answered if isinstance(answered, bool) else None,
    )
    return text, result


def _unknown(err: EntityNotFoundError) -> Reply:
    artifact = {"error": "entity_not_found", "entity": err.name, "suggestions": err.suggestions}
    return unknown_entity_text(err), artifact


def method_tool(
    chain: MethodChain, name: str | None = None, description: str | None = None
) -> BaseTool:
    """``chain`` as a tool taking ``question`` and optional ``topic_entities`` (see the
    module's text); the content is the answer, the artifact the result dict."""

    def run(
        question: str, topic_entities: list[str] | None = None, callbacks: Callbacks = None
    ) -> Reply:
        value = _input(chain, question, topic_entities)
        try:
            return _reply(chain.invoke(value, config={"callbacks": callbacks}))
        except EntityNotFoundError as err:
            return _unknown(err)

    async def arun(
        question: str, topic_entities: list[str] | None = None, callbacks: Callbacks = None
    ) -> Reply:
        value = await run_graph_work(_input, chain, question, topic_entities)  # graph reads
        try:
            return _reply(await chain.ainvoke(value, config={"callbacks": callbacks}))
        except EntityNotFoundError as err:
            return _unknown(err)

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=name or chain.get_name(),
        description=description or _description(chain),
        args_schema=MethodToolInput,
        response_format="content_and_artifact",
    )
