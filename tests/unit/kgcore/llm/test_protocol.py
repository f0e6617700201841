from __future__ import annotations

import asyncio

from kgcore.llm import (
    ChatMessage,
    LLMReply,
    LLMRequest,
    ScriptedLLM,
    UsageMeter,
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


def test_reminder_continues_the_conversation() -> None:
    request = LLMRequest.from_prompt("pick", purpose="prune")
    again = request.with_reminder("hmm", "Reply with {1}")
    assert [m.role for m in again.messages] == ["user", "assistant", "user"]
    assert again.purpose == "prune"


def test_usage_meter_counts_tokens_only_when_reported() -> None:
    meter = UsageMeter()
    meter.add(LLMReply("a", seconds=0.5))
    assert meter.calls == 1 and not meter.tokens_reported
    meter.add(LLMReply("b", prompt_tokens=10, completion_tokens=2, seconds=0.25))
    assert (meter.calls, meter.prompt_tokens, meter.completion_tokens) == (2, 10, 2)
    assert meter.tokens_reported and meter.llm_seconds == 0.75
