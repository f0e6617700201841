"""The LLM protocol, its drivers, reply parsing and a scripted model for tests."""

from kgcore.llm.parsing import is_unknown, parse_answer, parse_choices, parse_entities
from kgcore.llm.protocol import (
    AsyncChatLLM,
    ChatLLM,
    ChatMessage,
    LLMReply,
    LLMRequest,
    Steps,
    UsageMeter,
    arun_steps,
    run_steps,
)
from kgcore.llm.scripted import ScriptedLLM

__all__ = [
    "AsyncChatLLM",
    "ChatLLM",
    "ChatMessage",
    "LLMReply",
    "LLMRequest",
    "ScriptedLLM",
    "Steps",
    "UsageMeter",
    "arun_steps",
    "is_unknown",
    "parse_answer",
    "parse_choices",
    "parse_entities",
    "run_steps",
]
