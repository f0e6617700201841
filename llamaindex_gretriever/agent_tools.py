"""G-Retriever and the kgcore methods (FastToG, ToG, CGPE, ...) as LlamaIndex agent tools.

A tool never ends the agent's run on a name it does not know: it answers with the closest names
in the graph (:func:`kgcore.agent_text.unknown_entity_text`), which the agent can retry with.
A bare entity name as the query (``Ruggero Raimondi``) is about that entity, and the agent may
pass the names as ``topic_entities``; a plain question is linked by the node names it writes
(then the strict fuzzy rule), and one that names no node gets the closest names, or, rarely,
:data:`~kgcore.agent_text.NO_TOPIC_TEXT`. Each tool's plain function
(``tool.fn``) takes the same arguments, for other frameworks
(``langchain_core.tools.StructuredTool.from_function(tool.fn)``).

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.llm import ScriptedLLM
>>> from kgcore.methods.tog import ToG
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
>>> tool = method_tool(ToG(store), ScriptedLLM(["Yes {J. Mankiewicz}"]))
>>> tool.call(question="who directed [Cleopatra]").content
'J. Mankiewicz'
>>> tool.call(question="who directed [Cleopatre 1963]").content[:35]
"No entity named 'Cleopatre 1963' is"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llama_index.core.tools import FunctionTool

from kgcore.agent_text import answer_text, name_as_topic, unknown_entity_text
from kgcore.builder import build_method
from kgcore.concurrency import run_graph_work
from kgcore.exceptions import ConfigurationError, EntityNotFoundError
from kgcore.graph.store import GraphStore
from kgcore.methods.base import StepMethod
from kgcore.methods.kernel import Budget
from llamaindex_gretriever.method_llm import as_chat_llm
from llamaindex_gretriever.retriever import GRETRIEVER_TOOL_DESCRIPTION, GRetrieverRetriever

__all__ = ["GRETRIEVER_TOOL_DESCRIPTION", "gretriever_tool", "method_tool"]

METHOD_TOOL_DESCRIPTION = (
    "Answers a question from the knowledge graph. Write the entities the question is about in "
    "[brackets], e.g. 'who directed [Cleopatra]', or pass them as topic_entities. An unknown "
    "name gets the closest names in the graph."
)


def gretriever_search(
    retriever: GRetrieverRetriever, query: str, topic_entities: list[str] | None = None
) -> str:
    """The G-Retriever subgraph of ``query`` as text, or what the agent should do instead
    (:meth:`GRetrieverRetriever.search_text`)."""
    return retriever.search_text(query, topic_entities)


def gretriever_tool(
    retriever: GRetrieverRetriever,
    name: str = "knowledge_graph",
    description: str = GRETRIEVER_TOOL_DESCRIPTION,
) -> FunctionTool:
    """``retriever`` as a tool: ``query`` and optional ``topic_entities`` in, the subgraph's
    triples out as text (see the module's text; :meth:`GRetrieverRetriever.as_tool`)."""
    return retriever.as_tool(name, description)


def method_tool(
    method: StepMethod[Any] | str,
    llm: Any,
    name: str = "knowledge_graph_qa",
    description: str = METHOD_TOOL_DESCRIPTION,
    max_llm_calls: int | None = None,
    max_prompt_tokens: int | None = None,
    *,
    graph: Any = None,
    embed_model: Any = None,
    preset: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> FunctionTool:
    """A kgcore method answering with ``llm`` (a LlamaIndex LLM, or a kgcore chat model) as a
    tool: ``question`` and optional ``topic_entities`` in, the answer out (see the module's
    text).

    ``method`` is an engine (``FastToG(store)``, ``ToG(store)``, ...) or a method's name
    (``"fasttog"``, ``"tog"``, ``"cgpe"``, ``"gretriever"``, ...), which
    :func:`kgcore.builder.build_method` builds over ``graph`` with ``embed_model`` (a
    LlamaIndex ``BaseEmbedding``, or any embedder the builder takes; left out: the offline
    all-MiniLM-L6-v2 when the ``embeddings`` extra is installed), ``preset`` and ``options``
    (flat or dotted: ``{"width": 2, "paths.max_hops": 0}``), as ``kgqa ask`` builds it.

    ``max_llm_calls`` / ``max_prompt_tokens`` cap what each question may cost (checked here,
    see :mod:`kgcore.methods.kernel.budget`); without them the method's own ``budget`` holds.
    """
    engine: StepMethod[Any]
    if isinstance(method, str):
        engine = build_method(method, graph, embeddings=embed_model, preset=preset, options=options)
    elif any(given is not None for given in (graph, embed_model, preset, options)):
        raise ConfigurationError(
            "graph, embed_model, preset and options build a method given by name; "
            f"this {type(method).__name__} is built already"
        )
    else:
        engine = method
    chat = as_chat_llm(llm)
    limits = {"max_llm_calls": max_llm_calls, "max_prompt_tokens": max_prompt_tokens}
    budget = Budget(**limits) if any(v is not None for v in limits.values()) else None
    store = getattr(engine, "store", None)

    def topics(question: str, given: list[str] | None) -> list[str] | None:
        if given or not isinstance(store, GraphStore):
            return given or None
        return name_as_topic(store, question) or None

    def ask(question: str, topic_entities: list[str] | None = None) -> str:
        """Answer a question from the knowledge graph; entities in [brackets] or
        topic_entities."""
        try:
            result = engine.run(question, chat, topics(question, topic_entities), budget=budget)
        except EntityNotFoundError as err:
            return unknown_entity_text(err)
        return answer_text(result.answer, result.fell_back, result.answered)

    async def aask(question: str, topic_entities: list[str] | None = None) -> str:
        """Answer a question from the knowledge graph; entities in [brackets] or
        topic_entities."""
        try:
            given = await run_graph_work(topics, question, topic_entities)
            result = await engine.arun(question, chat, given, budget=budget)
        except EntityNotFoundError as err:
            return unknown_entity_text(err)
        return answer_text(result.answer, result.fell_back, result.answered)

    return FunctionTool.from_defaults(fn=ask, async_fn=aask, name=name, description=description)
