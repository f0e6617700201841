"""The sync and async drivers feed a step generator its replies in order."""

from __future__ import annotations

import asyncio

from kgcore.llm import (
    ChatMessage,
    LLMReply,
    LLMRequest,
    ScriptedLLM,
    arun_steps,
    run_steps,
)


def two_questions():
    first = yield LLMRequest.from_prompt("one", purpose="a", system="be brief")
    second = yield LLMRequest.from_prompt("two", purpose="b")
    return first.text + second.text


def test_sync_driver_feeds_replies_in_order() -> None:
    llm = ScriptedLLM(["x", "y"])
    assert run_steps(two_questions(), llm) == "xy"
    assert [r.purpose for r in llm.requests] == ["a", "b"]
    assert llm.requests[0].messages[0] == ChatMessage("system", "be brief")


def test_async_driver_with_async_and_sync_models() -> None:
    class AsyncEcho:
        async def agenerate(self, request: LLMRequest) -> LLMReply:
            return LLMReply(text=request.messages[-1].content.upper())

    assert asyncio.run(arun_steps(two_questions(), AsyncEcho())) == "ONETWO"
    assert asyncio.run(arun_steps(two_questions(), ScriptedLLM(["p", "q"]))) == "pq"
