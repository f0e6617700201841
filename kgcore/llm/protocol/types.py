"""The protocol's types: chat messages, requests and replies, the models, step generators and
the usage meter.

A method is a :data:`Steps` generator: it yields an :class:`LLMRequest` and receives an
:class:`LLMReply`. A model is a :class:`ChatLLM` (synchronous) or an :class:`AsyncChatLLM`.

Example
-------
>>> request = LLMRequest.from_prompt("capital of France?", purpose="io", system="be brief")
>>> [m.role for m in request.messages], request.purpose
(['system', 'user'], 'io')
>>> meter = UsageMeter()
>>> meter.add(LLMReply("{Paris}", prompt_tokens=12, completion_tokens=3))
>>> meter.calls, meter.prompt_tokens + meter.completion_tokens
(1, 15)
"""

from __future__ import annotations

import math
import threading
from collections.abc import Generator
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from typing import Protocol, TypeVar, runtime_checkable

__all__ = [
    "AsyncChatLLM",
    "ChatLLM",
    "ChatMessage",
    "LLMReply",
    "LLMRequest",
    "Steps",
    "UsageMeter",
]

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
    adapters can label traces and tests can script replies by step. ``timeout`` is the
    per-call limit in seconds set by the driver's :class:`~kgcore.llm.protocol.RetryPolicy`; an
    adapter whose model supports a timeout should pass it on. ``cancel`` is set by the driver
    when that limit passes and it stops waiting: a model that checks it (``is_set()``) between
    tokens, as the local llama.cpp model does, ends the call and frees its worker thread
    (:mod:`kgcore.llm.protocol.workers`). ``seed``, when set, asks
    for that sampling seed (CoT-SC varies it per sample); adapters pass it where the model
    has a seed field. ``fixed_prefix`` is the number of leading messages that many requests
    share word for word (a method's demonstrations); a local model may keep their evaluated
    state and start every such request from it (``ChatLlamaCppLocal.prefix_cache``).
    ``cache_scope`` names the run a request belongs to (every method's run stamps its own, see
    :func:`kgcore.methods.base.in_cache_scope`): a local model may start a request from the
    evaluated state of an earlier prompt of the same run that shares its opening, and starts a
    new run from an empty context, so a run's replies depend only on its own calls
    (``ChatLlamaCppLocal.run_cache``).
    """

    messages: tuple[ChatMessage, ...]
    purpose: str
    temperature: float = 0.0
    max_tokens: int = 256
    timeout: float | None = None
    seed: int | None = None
    fixed_prefix: int = 0
    cache_scope: str | None = None
    cancel: threading.Event | None = field(default=None, compare=False, repr=False)

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
    """The model's answer, with token counts when the model reports them.

    ``sent`` is ``False`` for a reply no model gave: the request was not sent because the run's
    cost cap was spent (:mod:`kgcore.methods.kernel.budget`); its text is empty, so the method
    takes its path for an unusable reply, and a :class:`UsageMeter` does not count it.

    A model's metadata is not trusted, and never stops a run: a token count is kept when it is a
    whole number >= 0 (an int, a whole finite float or a string of digits), else it is ``None``
    (not reported); ``seconds`` is kept when it is a finite number >= 0, else ``0.0`` (the
    driver then measures the call). A text that is no string is the driver's to read as an
    empty reply (:func:`~kgcore.llm.protocol.run_steps`).

    >>> reply = LLMReply("{Paris}", prompt_tokens="12", completion_tokens=-5, seconds=float("nan"))
    >>> reply.prompt_tokens, reply.completion_tokens, reply.seconds
    (12, None, 0.0)
    """

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    sent: bool = True

    def __post_init__(self) -> None:
        for name in ("prompt_tokens", "completion_tokens"):
            value = getattr(self, name)
            count = token_count(value)
            if count is not value:
                object.__setattr__(self, name, count)
        seconds = self.seconds
        usable = (
            isinstance(seconds, Real)
            and not isinstance(seconds, bool)
            and math.isfinite(seconds)
            and seconds >= 0
        )
        if not usable or type(seconds) is not float:
            object.__setattr__(self, "seconds", float(seconds) if usable else 0.0)


def token_count(value: object) -> int | None:
    """A model's token count as a whole number >= 0: an int, a whole finite float or a string
    of digits; ``None`` (not reported) for anything else (``-5``, ``NaN``, ``True``, ``"12k"``).

    >>> [token_count(v) for v in (12, "12", 3.0, -5, True, float("nan"))]
    [12, 12, 3, None, None, None]
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, Integral):
        count = int(value)
        return count if count >= 0 else None
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value >= 0 and value.is_integer() else None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 15:
        return int(value.strip())
    return None


@runtime_checkable
class ChatLLM(Protocol):
    """A synchronous chat model."""

    def generate(self, request: LLMRequest) -> LLMReply: ...


@runtime_checkable
class AsyncChatLLM(Protocol):
    """An asynchronous chat model."""

    async def agenerate(self, request: LLMRequest) -> LLMReply: ...


#: A method as a step generator: it yields requests, receives replies and returns a ``T``.
Steps = Generator[LLMRequest, LLMReply, T]


@dataclass
class UsageMeter:
    """Counts LLM calls, tokens and seconds as replies come in.

    ``unparsed`` counts replies a method could not use (it asks again or gives up). A reply to
    a request that was not sent (``LLMReply.sent`` is ``False``) counts nothing.
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_reported: bool = False
    llm_seconds: float = 0.0
    unparsed: int = 0

    def add(self, reply: LLMReply) -> None:
        if not reply.sent:
            return
        self.calls += 1
        self.llm_seconds += reply.seconds
        if reply.prompt_tokens is not None:
            self.tokens_reported = True
            self.prompt_tokens += reply.prompt_tokens
        if reply.completion_tokens is not None:
            self.tokens_reported = True
            self.completion_tokens += reply.completion_tokens
