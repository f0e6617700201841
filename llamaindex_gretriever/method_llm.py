"""A LlamaIndex LLM seen through the kgcore :class:`~kgcore.llm.ChatLLM` protocol, so that a
kgcore method (FastToG, ToG, CGPE, ...) can reason with it
(:func:`~llamaindex_gretriever.agent_tools.method_tool`).

The model keeps its own settings (temperature, token cap): a method's per-step settings are not
passed, as with the LangChain adapter's default. Token counts are not read.

Example
-------
>>> from llama_index.core.llms import MockLLM
>>> from kgcore.llm import LLMRequest
>>> reply = LlamaIndexChatLLM(MockLLM()).generate(LLMRequest.from_prompt("{A}", purpose="io"))
>>> reply.text  # MockLLM echoes the prompt
'user: {A}\\nassistant: '
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse

from kgcore.exceptions import ConfigurationError
from kgcore.llm.protocol import ChatLLM, LLMReply, LLMRequest

__all__ = ["LlamaIndexChatLLM", "as_chat_llm"]

#: Characters of a reply kept (a reply is untrusted input; the core's own caps then apply).
MAX_REPLY_CHARS = 100_000


def _messages(request: LLMRequest) -> list[ChatMessage]:
    return [ChatMessage(role=m.role, content=m.content) for m in request.messages]


def _reply(response: ChatResponse) -> LLMReply:
    content = getattr(response.message, "content", None)
    text = content if isinstance(content, str) else ""
    return LLMReply(text=text[:MAX_REPLY_CHARS])


class LlamaIndexChatLLM:
    """A LlamaIndex ``LLM`` (anything with ``chat`` and ``achat``) as a kgcore chat model."""

    def __init__(self, llm: Any) -> None:
        if not callable(getattr(llm, "chat", None)):
            raise ConfigurationError(
                f"llm must be a LlamaIndex LLM (with chat), got {type(llm).__name__}"
            )
        self.llm = llm

    def generate(self, request: LLMRequest) -> LLMReply:
        return _reply(self.llm.chat(_messages(request)))

    async def agenerate(self, request: LLMRequest) -> LLMReply:
        return _reply(await self.llm.achat(_messages(request)))


def as_chat_llm(llm: Any) -> ChatLLM:
    """``llm`` when it is a kgcore chat model (``ScriptedLLM``, ...), else a LlamaIndex LLM
    wrapped in :class:`LlamaIndexChatLLM`."""
    if callable(getattr(llm, "generate", None)) and not callable(getattr(llm, "chat", None)):
        return llm
    return LlamaIndexChatLLM(llm)
