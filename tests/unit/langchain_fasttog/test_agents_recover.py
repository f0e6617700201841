"""A LangChain ``create_agent`` run recovers from an unknown name and from a name without
brackets, with FastToG (its retriever and its chain) and G-Retriever as tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool, StructuredTool, create_retriever_tool

from kgcore.graph import InMemoryGraphStore
from kgcore.gretriever import RegionSettings
from langchain_fasttog import FastToGChain, FastToGRetriever
from llamaindex_gretriever import GRetrieverRetriever, gretriever_tool

DIRECTOR = "Joseph L. Mankiewicz"


class ToolCallingFake(FakeMessagesListChatModel):
    """Replies from a list; ``bind_tools`` keeps the script (the tools are already chosen)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:  # type: ignore[override]
        return self


def method_model() -> RunnableLambda[list[BaseMessage], AIMessage]:
    """FastToG's own model, answering each step by its purpose (the run's tags)."""
    replies = {"extract_entities": '["Cleopatra"]', "prune": "{2}", "reason": f"{{{DIRECTOR}}}"}

    def reply(messages: list[BaseMessage], config: RunnableConfig) -> AIMessage:
        purpose = next(t for t in config.get("tags", []) if t in replies)
        return AIMessage(content=replies[purpose])

    return RunnableLambda(reply)


def _call(tool: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": tool, "args": args, "id": call_id}])


def run_agent(tool: BaseTool, first: dict[str, Any], retry: dict[str, Any]) -> list[str]:
    """The agent asks with ``first``, asks again with ``retry``, then answers; returns the
    tool messages' texts."""
    model = ToolCallingFake(
        responses=[
            _call(tool.name, first, "c1"),
            _call(tool.name, retry, "c2"),
            AIMessage(content="done"),
        ]
    )
    agent = create_agent(model, tools=[tool])
    state = agent.invoke({"messages": [{"role": "user", "content": "who directed Cleopatra?"}]})
    assert state["messages"][-1].content == "done"
    return [str(m.content) for m in state["messages"] if isinstance(m, ToolMessage)]


def fasttog_retriever_tool(store: InMemoryGraphStore) -> BaseTool:
    retriever = FastToGRetriever(graph=store, llm=method_model(), width=1, max_community_size=2)
    return create_retriever_tool(retriever, "kg", "search the movie knowledge graph")


def fasttog_chain_tool(store: InMemoryGraphStore) -> BaseTool:
    chain = FastToGChain(graph=store, llm=method_model(), width=1, max_community_size=2)
    return chain.as_tool(name="kg")


def gretriever_langchain_tool(store: InMemoryGraphStore, embedder: Any, cache: Path) -> BaseTool:
    retriever = GRetrieverRetriever.from_graph(
        store,
        embedder,
        cache_dir=cache,
        region=RegionSettings(whole_graph_max_nodes=1),
        text_format="triples",
    )  # lazy, and the graph counts as large: a question needs a topic entity
    return StructuredTool.from_function(gretriever_tool(retriever).fn, name="kg")


def _query_key(tool: BaseTool) -> str:
    return "question" if "question" in tool.args else "query"


@pytest.mark.parametrize(
    "make", [fasttog_retriever_tool, fasttog_chain_tool], ids=["retr", "chain"]
)
def test_fasttog_tools_recover_from_an_unknown_name(
    movie_store: InMemoryGraphStore, make: Any
) -> None:
    tool = make(movie_store)
    key = _query_key(tool)
    first, second = run_agent(
        tool, {key: "who directed [Cleopatre 1963]"}, {key: "who directed [Cleopatra]"}
    )
    assert "No entity named 'Cleopatre 1963'" in first and "[Cleopatra]" in first
    assert DIRECTOR in second


@pytest.mark.parametrize(
    "make", [fasttog_retriever_tool, fasttog_chain_tool], ids=["retr", "chain"]
)
@pytest.mark.parametrize("query", ["Cleopatra", "who directed Cleopatra"])
def test_fasttog_tools_take_a_name_without_brackets(
    movie_store: InMemoryGraphStore, make: Any, query: str
) -> None:
    tool = make(movie_store)
    key = _query_key(tool)
    first, second = run_agent(tool, {key: query}, {key: "who directed [Cleopatra]"})
    assert DIRECTOR in first and DIRECTOR in second


def test_gretriever_tool_recovers_from_an_unknown_name(
    movie_store: InMemoryGraphStore, embedder: Any, tmp_path: Path
) -> None:
    tool = gretriever_langchain_tool(movie_store, embedder, tmp_path)
    first, second = run_agent(
        tool, {"query": "who directed [Cleopatre 1963]"}, {"query": "who directed [Cleopatra]"}
    )
    assert "No entity named 'Cleopatre 1963'" in first and "[Cleopatra]" in first
    assert f"(Cleopatra, directed by, {DIRECTOR})" in second


def test_gretriever_tool_recovers_from_a_name_without_brackets(
    movie_store: InMemoryGraphStore, embedder: Any, tmp_path: Path
) -> None:
    tool = gretriever_langchain_tool(movie_store, embedder, tmp_path)
    plain = {"query": "who directed Cleopatra"}
    (plain_output,) = run_agent(tool, plain, plain)[:1]
    assert f"(Cleopatra, directed by, {DIRECTOR})" in plain_output  # the name it writes (issue 39)
    first, second = run_agent(
        tool,
        {"query": "who directed that film"},
        {"query": "who directed that film", "topic_entities": ["Cleopatra"]},
    )
    assert "No entity named 'who directed that film'" in first
    assert f"(Cleopatra, directed by, {DIRECTOR})" in second
    (bare,) = run_agent(tool, {"query": "Cleopatra"}, {"query": "Cleopatra"})[:1]
    assert f"(Cleopatra, directed by, {DIRECTOR})" in bare
