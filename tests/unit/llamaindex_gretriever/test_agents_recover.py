"""A LlamaIndex ``ReActAgent`` recovers from an unknown name and from a name without
brackets, with G-Retriever and FastToG as tools (scripted models)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.agent.workflow import ReActAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool

from kgcore.graph import InMemoryGraphStore
from kgcore.gretriever import RegionSettings
from kgcore.llm import LLMRequest
from kgcore.methods.fasttog import FastToG, FastToGConfig
from llamaindex_gretriever import GRetrieverRetriever, gretriever_tool, method_tool

DIRECTOR = "Joseph L. Mankiewicz"
TRIPLE = f"(Cleopatra, directed by, {DIRECTOR})"


def react_model(calls: list[dict[str, Any]]) -> MockFunctionCallingLLM:
    """The agent's model: one ReAct action per entry of ``calls``, then the last observation
    as the answer."""

    def reply(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        observations = [
            m
            for m in messages
            if m.role == MessageRole.USER and str(m.content).startswith("Observation:")
        ]
        step = len(observations)
        if step < len(calls):
            text = (
                "Thought: I need to use a tool to help me answer the question.\n"
                f"Action: kg\nAction Input: {json.dumps(calls[step])}"
            )
        else:
            last = str(observations[-1].content).replace("Observation:", "").strip()
            text = f"Thought: I can answer without using any more tools.\nAnswer: {last}"
        return ChatMessage(role=MessageRole.ASSISTANT, content=text)

    return MockFunctionCallingLLM(response_generator=reply)


async def run_agent(tool: FunctionTool, calls: list[dict[str, Any]]) -> list[str]:
    """Run a ReActAgent; returns the tool outputs, in order."""
    agent = ReActAgent(tools=[tool], llm=react_model(calls), streaming=False)
    handler = agent.run(user_msg="who directed Cleopatra?")
    outputs = []
    async for event in handler.stream_events():
        if type(event).__name__ == "ToolCallResult":
            outputs.append(str(event.tool_output.content))
    await handler
    return outputs


def gretriever(store: InMemoryGraphStore, embedder: Any, cache: Path) -> FunctionTool:
    retriever = GRetrieverRetriever.from_graph(
        store,
        embedder,
        cache_dir=cache,
        region=RegionSettings(whole_graph_max_nodes=1),  # lazy and "large": needs a topic
        text_format="triples",
    )
    return gretriever_tool(retriever, name="kg")


def fasttog_reply(request: LLMRequest) -> str:
    """FastToG's own model, answering each step by its purpose."""
    replies = {"extract_entities": '["Cleopatra"]', "prune": "{2}", "reason": f"{{{DIRECTOR}}}"}
    return replies[request.purpose]


def fasttog(store: InMemoryGraphStore) -> FunctionTool:
    from kgcore.llm import ScriptedLLM

    engine = FastToG(store, FastToGConfig(width=1, max_community_size=2))
    return method_tool(engine, ScriptedLLM(fasttog_reply), name="kg")


async def test_gretriever_tool_recovers_from_an_unknown_name(
    movie_store: InMemoryGraphStore, embedder: Any, tmp_path: Path
) -> None:
    tool = gretriever(movie_store, embedder, tmp_path)
    calls = [{"query": "who directed [Cleopatre 1963]"}, {"query": "who directed [Cleopatra]"}]
    first, second = await run_agent(tool, calls)
    assert "No entity named 'Cleopatre 1963'" in first and "[Cleopatra]" in first
    assert TRIPLE in second


@pytest.mark.parametrize(
    ("calls", "first_says"),
    [
        ([{"query": "who directed Cleopatra"}], TRIPLE),  # the name it writes (issue 39)
        (
            [
                {"query": "who directed that film"},
                {"query": "who directed that film", "topic_entities": ["Cleopatra"]},
            ],
            "No entity named 'who directed that film'",
        ),
        ([{"query": "Cleopatra"}], TRIPLE),
        ([{"query": "Cleoptra"}], TRIPLE),  # the strict fuzzy rule (ratio 94)
        (
            [{"query": "Cleopatre"}, {"query": "Cleopatra"}],  # ratio 89: not linked
            "Closest names in the graph: [Cleopatra]",
        ),
    ],
    ids=[
        "plain-question",
        "no-name-then-topic-entities",
        "bare-name",
        "misspelt-name-linked",
        "misspelt-name-refused",
    ],
)
async def test_gretriever_tool_takes_a_name_without_brackets(
    movie_store: InMemoryGraphStore,
    embedder: Any,
    tmp_path: Path,
    calls: list[dict[str, Any]],
    first_says: str,
) -> None:
    outputs = await run_agent(gretriever(movie_store, embedder, tmp_path), calls)
    assert first_says in outputs[0] and TRIPLE in outputs[-1]


async def test_fasttog_tool_recovers_from_an_unknown_name(movie_store: InMemoryGraphStore) -> None:
    calls = [
        {"question": "who directed [Cleopatre 1963]"},
        {"question": "who directed [Cleopatra]"},
    ]
    first, second = await run_agent(fasttog(movie_store), calls)
    assert "No entity named 'Cleopatre 1963'" in first and "[Cleopatra]" in first
    assert second == DIRECTOR


@pytest.mark.parametrize("question", ["Cleopatra", "who directed Cleopatra"])
async def test_fasttog_tool_takes_a_name_without_brackets(
    movie_store: InMemoryGraphStore, question: str
) -> None:
    (output,) = await run_agent(fasttog(movie_store), [{"question": question}])
    assert output == DIRECTOR


def test_a_plain_retriever_returns_the_closest_names_or_raises(
    movie_store: InMemoryGraphStore, embedder: Any, tmp_path: Path
) -> None:
    from kgcore.exceptions import ConfigurationError, EntityNotFoundError

    def build(**kwargs: Any) -> GRetrieverRetriever:
        return GRetrieverRetriever.from_graph(movie_store, embedder, cache_dir=tmp_path, **kwargs)

    (node,) = build().retrieve("who directed [Cleopatre 1963]")
    assert node.node.metadata["suggestions"][0] == "Cleopatra"
    assert "Closest names in the graph: [Cleopatra]" in node.node.get_content()
    assert build(on_unknown_entity="empty").retrieve("who directed [Cleopatre 1963]") == []
    with pytest.raises(EntityNotFoundError, match="Cleopatra"):
        build(on_unknown_entity="raise").retrieve("who directed [Cleopatre 1963]")
    with pytest.raises(ConfigurationError, match="on_unknown_entity"):
        build(on_unknown_entity="ignore")
