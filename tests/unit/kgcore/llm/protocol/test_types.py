"""The protocol's types: requests continue a conversation, the usage meter counts replies."""

from __future__ import annotations

from kgcore.llm import ChatMessage, LLMReply, LLMRequest, UsageMeter


def test_from_prompt_puts_the_system_message_first() -> None:
    request = LLMRequest.from_prompt("one", purpose="a", system="be brief")
    assert request.messages == (ChatMessage("system", "be brief"), ChatMessage("user", "one"))
    assert LLMRequest.from_prompt("two", purpose="b").messages == (ChatMessage("user", "two"),)


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
