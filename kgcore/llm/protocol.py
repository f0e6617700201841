"""The small LLM protocol every method is written against.

Methods are written once as *step generators*: they ``yield`` an :class:`LLMRequest` and receive
an :class:`LLMReply`. :func:`run_steps` drives one with a synchronous model and
:func:`arun_steps` with an asynchronous one, so each method has a sync and an async path
without being written twice. Adapters (LangChain, LlamaIndex) implement :class:`ChatLLM`.

Example
-------
>>> def ask(question):
...     reply = yield LLMRequest.from_prompt(question, purpose="io")
...     return reply.text.upper()
>>> class Echo:
...     def generate(self, request):
...         return LLMReply(text=request.messages[-1].content)
>>> run_steps(ask("hello"), Echo())
'HELLO'
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar, runtime_checkable

T = TypeVar("T")


@dataclass(frozen=True)
class ChatMessage:
    """One chat message; ``role`` is ``"system"``, ``"user"`` or ``"assistant"``."""

    role: str
    content: str


@dataclass(frozen=True)
class LLMRequest:
    """What a method asks of the model.

    ``purpose`` names the step (``"extract_entities"``, ``"prune"``, ``"reason"``, ...) so
    adapters can label traces and tests can script replies by step. ``seed``, when set, asks
    for that sampling seed (CoT-SC varies it per sample); adapters pass it where the model
    has a seed field.
    """

    messages: tuple[ChatMessage, ...]
    purpose: str
    temperature: float = 0.0
    max_tokens: int = 256
    seed: int | None = None

    @classmethod
    def from_prompt(
        cls,
        prompt: str,
        purpose: str,
        system: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 256,
    ) -> LLMRequest:
        messages = (ChatMessage("system", system),) if system else ()
        return cls(messages + (ChatMessage("user", prompt),), purpose, temperature, max_tokens)

    def with_reminder(self, previous_reply: str, reminder: str) -> LLMRequest:
        """The same request continued by the model's unusable reply and a format reminder."""
        extra = (ChatMessage("assistant", previous_reply), ChatMessage("user", reminder))
        return replace(self, messages=self.messages + extra)

    @property
    def prompt_text(self) -> str:
        return "\n\n".join(m.content for m in self.messages)


@dataclass(frozen=True)
class LLMReply:
    """The model's answer, with token counts when the model reports them."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0


@runtime_checkable
class ChatLLM(Protocol):
    """A synchronous chat model."""

    def generate(self, request: LLMRequest) -> LLMReply: ...


@runtime_checkable
class AsyncChatLLM(Protocol):
    """An asynchronous chat model."""

    async def agenerate(self, request: LLMRequest) -> LLMReply: ...


Steps = Generator[LLMRequest, LLMReply, T]


def _timed(reply: LLMReply, started: float) -> LLMReply:
    if reply.seconds:
        return reply
    return replace(reply, seconds=time.perf_counter() - started)


def run_steps(steps: Steps[T], llm: ChatLLM) -> T:
    """Drive a step generator with a synchronous model and return its result."""
    try:
        request = next(steps)
        while True:
            started = time.perf_counter()
            reply = _timed(llm.generate(request), started)
            request = steps.send(reply)
    except StopIteration as stop:
        return stop.value


async def arun_steps(steps: Steps[T], llm: AsyncChatLLM | ChatLLM) -> T:
    """Drive a step generator with an asynchronous model (or a sync one, in a thread)."""
    import asyncio

    try:
        request = next(steps)
        while True:
            started = time.perf_counter()
            if isinstance(llm, AsyncChatLLM):
                reply = await llm.agenerate(request)
            else:
                reply = await asyncio.to_thread(llm.generate, request)
            request = steps.send(_timed(reply, started))
    except StopIteration as stop:
        return stop.value


@dataclass
class UsageMeter:
    """Counts LLM calls, tokens and seconds as replies come in.

    ``unparsed`` counts replies a method could not use (it asks again or gives up).
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_reported: bool = False
    llm_seconds: float = 0.0
    unparsed: int = 0

    def add(self, reply: LLMReply) -> None:
        self.calls += 1
        self.llm_seconds += reply.seconds
        if reply.prompt_tokens is not None:
            self.tokens_reported = True
            self.prompt_tokens += reply.prompt_tokens
        if reply.completion_tokens is not None:
            self.tokens_reported = True
            self.completion_tokens += reply.completion_tokens
