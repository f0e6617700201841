"""``Graph2TextTool`` inside a LangChain agent driven by a fake tool-calling model."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, ToolMessage

from kgcore.text.graph2text.guard import GuardedTextualizer
from langchain_fasttog import Graph2TextTool
from tests.support.graph2text_default import (
    BOTH_WAYS,
    T5,
    fake_loading,
    simulate_runnable,
    without,
)

TRIPLES = [["Alan Bean", "occupation", "Test pilot"], ["Alan Bean", "birthPlace", "Wheeler, Texas"]]


class ToolCallingFake(FakeMessagesListChatModel):
    """Replies from a list; ``bind_tools`` keeps the script (the tools are already chosen)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:  # type: ignore[override]
        return self


def _agent_run(tool: Graph2TextTool, triples: Any) -> list[ToolMessage]:
    model = ToolCallingFake(
        responses=[
            AIMessage(
                content="",
                tool_calls=[{"name": "graph2text", "args": {"triples": triples}, "id": "c1"}],
            ),
            AIMessage(content="done"),
        ]
    )
    agent = create_agent(model, tools=[tool])
    state = agent.invoke({"messages": [{"role": "user", "content": "describe Alan Bean"}]})
    assert state["messages"][-1].content == "done"
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


def test_agent_gets_the_generated_text_when_it_passes_the_guard() -> None:
    seen: list[Any] = []

    def generate(communities: Any) -> list[str]:
        seen.extend(communities)
        return ["Alan Bean, born in Wheeler, Texas, was a test pilot." for _ in communities]

    tool = Graph2TextTool(textualizer=GuardedTextualizer(generate))
    (message,) = _agent_run(tool, TRIPLES)
    assert message.content == "Alan Bean, born in Wheeler, Texas, was a test pilot."
    assert [tuple(t) for t in seen[0]] == [tuple(t) for t in TRIPLES]


def test_agent_gets_triple2text_when_the_model_makes_up_a_name() -> None:
    tool = Graph2TextTool(
        textualizer=GuardedTextualizer(lambda cs: ["Alan Bean flew for NASA." for _ in cs])
    )
    (message,) = _agent_run(tool, TRIPLES)
    assert message.content == (
        "Alan Bean occupation Test pilot. Alan Bean birthPlace Wheeler, Texas."
    )
    assert tool.textualizer.fallbacks == 1


def test_a_bad_tool_call_gets_a_message_not_an_exception() -> None:
    tool = Graph2TextTool(textualizer=GuardedTextualizer(lambda cs: ["x" for _ in cs]))
    assert tool.invoke({"triples": [["only", "two"]]}).startswith("error: triple 0")
    assert tool.invoke({"triples": [TRIPLES[0]] * 40}).startswith("error: at most 32")


@pytest.mark.parametrize(("missing", "expected"), BOTH_WAYS)
def test_from_model_without_a_name_is_the_default_model_and_says_which(
    monkeypatch: pytest.MonkeyPatch, missing: tuple[str, ...], expected: str
) -> None:
    """The fine-tuned SmolLM2 with the g2t extra, the T5 without peft (issue 50)."""
    simulate_runnable(monkeypatch)
    without(monkeypatch, *missing)
    fake_loading(monkeypatch)
    assert Graph2TextTool.from_model().description.endswith(f"(model: {expected})")
    assert Graph2TextTool.from_model(str(T5)).description.endswith(f"(model: {T5})")
