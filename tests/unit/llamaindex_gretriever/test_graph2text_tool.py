"""The Graph2Text ``FunctionTool`` inside a LlamaIndex agent driven by a fake model."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM

from kgcore.text.graph2text.guard import GuardedTextualizer
from kgcore.text.graph2text.tool import TOOL_DESCRIPTION
from llamaindex_gretriever import graph2text_tool
from tests.support.graph2text_default import BOTH_WAYS, fake_loading, simulate_runnable, without

TRIPLES = [["Alan Bean", "occupation", "Test pilot"]]


def _script(messages: Any, **kwargs: Any) -> ChatMessage:
    results = [m for m in messages if m.role == MessageRole.TOOL]
    if results:
        return ChatMessage(role=MessageRole.ASSISTANT, content=f"final: {results[-1].content}")
    call = ToolCallBlock(
        tool_call_id="c1", tool_name="graph2text", tool_kwargs={"triples": TRIPLES}
    )
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])


async def test_function_agent_calls_the_tool_and_reads_the_guarded_text() -> None:
    tool = graph2text_tool(
        textualizer=GuardedTextualizer(lambda cs: ["Alan Bean was a test pilot." for _ in cs])
    )
    assert tool.metadata.name == "graph2text"
    agent = FunctionAgent(tools=[tool], llm=MockFunctionCallingLLM(response_generator=_script))
    response = await agent.run(user_msg="describe Alan Bean")
    assert str(response) == "final: Alan Bean was a test pilot."


async def test_function_agent_gets_triple2text_for_a_rejected_text() -> None:
    guarded = GuardedTextualizer(lambda cs: ["He was a pilot." for _ in cs])
    agent = FunctionAgent(
        tools=[graph2text_tool(textualizer=guarded)],
        llm=MockFunctionCallingLLM(response_generator=_script),
    )
    response = await agent.run(user_msg="describe Alan Bean")
    assert str(response) == "final: Alan Bean occupation Test pilot."
    assert (guarded.calls, guarded.fallbacks) == (1, 1)
    bad = graph2text_tool(textualizer=guarded).call(triples="Alan Bean")
    assert bad.content.startswith("error:")


@pytest.mark.parametrize(("missing", "expected"), BOTH_WAYS)
def test_the_default_tool_names_its_model_in_the_description(
    monkeypatch: pytest.MonkeyPatch, missing: tuple[str, ...], expected: str
) -> None:
    """The fine-tuned SmolLM2 with the g2t extra, the T5 without peft (issue 50)."""
    simulate_runnable(monkeypatch)
    without(monkeypatch, *missing)
    fake_loading(monkeypatch)
    tool = graph2text_tool()
    assert tool.metadata.description.startswith(TOOL_DESCRIPTION)
    assert tool.metadata.description.endswith(f"(model: {expected})")
    out = tool.call(triples=[["Cleopatra", "directed_by", "Joseph L. Mankiewicz"]]).content
    assert "Cleopatra" in out
