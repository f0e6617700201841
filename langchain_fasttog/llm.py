"""Adapter from any LangChain chat Runnable to the kgcore LLM protocol.

The model may be any ``Runnable`` that takes a list of messages and returns a message: a chat
model, or one wrapped by ``.with_retry()``, ``.bind(stop=...)``, ``.with_fallbacks([...])``,
``.with_config(...)`` or ``init_chat_model(configurable_fields=...)``. Every call goes through the
callback manager given at construction, as a child run named after its step
(``fasttog.prune``, ``fasttog.reason``, ...), so traces show each pruning and reasoning step.
Token counts come from the message's ``usage_metadata`` when the model reports them.

What reaches the model
----------------------
Each method step carries a temperature and a token cap. By default **neither is applied**: the
user's model runs with its own settings, on the user's instance (its callbacks and counters see
every call). A :class:`SamplingPolicy` applies them where asked for, as call keyword arguments
(``model.invoke(messages, temperature=..., max_tokens=...)``), never by copying the model.
Applied caps are raised to :attr:`SamplingPolicy.min_max_tokens`, so a policy never caps output
below what the user allows a (reasoning) model.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> from kgcore.llm import LLMRequest
>>> llm = LangChainLLM(FakeListChatModel(responses=["{A}"]).with_retry())
>>> llm.generate(LLMRequest.from_prompt("pick", purpose="prune")).text
'{A}'
>>> SamplingPolicy.paper().settings_for(LLMRequest.from_prompt("x", "prune", temperature=0.4))
{'temperature': 0.4, 'max_tokens': 256}
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManager, CallbackManager
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig

from kgcore.exceptions import ConfigurationError, LLMResponseError
from kgcore.llm.protocol import LLMReply, LLMRequest

_ROLES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
#: Field names chat-model integrations use for the generation cap (first found is used).
_MAX_TOKEN_FIELDS = ("max_tokens", "max_output_tokens", "max_new_tokens", "num_predict")
#: Characters of a LangChain message's text kept (a reply is untrusted input); the core's own
#: caps (:func:`kgcore.llm.protocol.reply_char_cap`) then apply.
MAX_MESSAGE_CHARS = 100_000

Purposes = bool | frozenset[str]


def _applies(setting: Purposes, purpose: str) -> bool:
    return setting if isinstance(setting, bool) else purpose in setting


def _purposes(value: bool | Collection[str]) -> Purposes:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return frozenset([value])
    return frozenset(value)


@dataclass(frozen=True)
class SamplingPolicy:
    """Which of a method's per-step temperatures and token caps reach the chat model.

    Parameters
    ----------
    temperature : bool or collection of str
        Apply the request's temperature: never (``False``, the default), always (``True``),
        or only for these step purposes (``{"prune"}``).
    max_tokens : bool or collection of str
        The same for the request's token cap.
    min_max_tokens : int
        Floor of an applied token cap (give a reasoning model the room it needs).

    Example
    -------
    >>> policy = SamplingPolicy(temperature={"reason"}, max_tokens=True, min_max_tokens=2048)
    >>> policy.settings_for(LLMRequest.from_prompt("x", "reason", temperature=0.1, max_tokens=64))
    {'temperature': 0.1, 'max_tokens': 2048}
    >>> SamplingPolicy().settings_for(LLMRequest.from_prompt("x", "reason"))
    {}
    """

    temperature: Purposes = False
    max_tokens: Purposes = False
    min_max_tokens: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "temperature", _purposes(self.temperature))
        object.__setattr__(self, "max_tokens", _purposes(self.max_tokens))
        if self.min_max_tokens < 0:
            raise ConfigurationError("min_max_tokens must be >= 0")

    @classmethod
    def paper(cls, max_tokens: bool = True, min_max_tokens: int = 0) -> SamplingPolicy:
        """Every step at the method's own (paper) temperature; its token caps when asked."""
        return cls(temperature=True, max_tokens=max_tokens, min_max_tokens=min_max_tokens)

    @property
    def applies_nothing(self) -> bool:
        return self.temperature is False and self.max_tokens is False

    def settings_for(self, request: LLMRequest) -> dict[str, Any]:
        """The settings of ``request`` this policy applies (``temperature``, ``max_tokens``)."""
        out: dict[str, Any] = {}
        if _applies(self.temperature, request.purpose):
            out["temperature"] = request.temperature
        if _applies(self.max_tokens, request.purpose):
            out["max_tokens"] = max(request.max_tokens, self.min_max_tokens)
        return out


def to_langchain_messages(request: LLMRequest) -> list[BaseMessage]:
    return [_ROLES[m.role](content=m.content) for m in request.messages]


def message_text(message: Any) -> str:
    """Plain text of a reply (a message, or a string from an output parser), capped.

    Raises :class:`~kgcore.exceptions.LLMResponseError` for anything else, naming its type.
    """
    if isinstance(message, str):
        return message[:MAX_MESSAGE_CHARS]
    if not isinstance(message, BaseMessage):
        raise LLMResponseError(
            "the llm must return a chat message (or a string), got "
            f"{type(message).__name__}: pass a chat model or a Runnable messages -> message"
        )
    text = getattr(message, "text", None)
    if not isinstance(text, str):  # langchain-core >= 1.0: a property (a str)
        text = text() if callable(text) else str(message.content)  # < 1.0: a method
    return text[:MAX_MESSAGE_CHARS]


def underlying_chat_model(model: Any, depth: int = 8) -> BaseChatModel | None:
    """The chat model inside wrappers (bindings, retries, fallbacks, configurables), if any."""
    for _ in range(depth):
        if isinstance(model, BaseChatModel):
            return model
        inner = None
        for attr in ("bound", "runnable", "default"):
            inner = getattr(model, attr, None)
            if isinstance(inner, Runnable):
                break
        if inner is None:
            return None
        model = inner
    return None


def require_chat_runnable(model: Any) -> Runnable:
    """``model`` when it is a LangChain Runnable (a chat model or a wrapped one)."""
    if not isinstance(model, Runnable):
        raise ConfigurationError(
            "llm must be a LangChain chat model or a Runnable taking messages and returning a "
            f"message, got {type(model).__name__}"
        )
    return model


class LangChainLLM:
    """A LangChain chat Runnable seen through the kgcore :class:`~kgcore.llm.ChatLLM` protocol.

    Parameters
    ----------
    model : Runnable
        Any LangChain chat model, or a Runnable messages -> message wrapping one
        (``with_retry``, ``bind``, ``with_fallbacks``, configurable models).
    callbacks : CallbackManager or AsyncCallbackManager, optional
        Parent of the child runs (a retriever's or chain's ``run_manager.get_child()``).
    run_name_prefix : str
        Prefix of each step's run name.
    sampling : SamplingPolicy, optional
        Which step temperatures and token caps are passed to the model. Default: none; the
        model keeps its own settings.
    """

    def __init__(
        self,
        model: Any,
        callbacks: CallbackManager | AsyncCallbackManager | None = None,
        run_name_prefix: str = "fasttog",
        sampling: SamplingPolicy | None = None,
    ) -> None:
        self.model = require_chat_runnable(model)
        #: Whose calls count together against the abandoned-call cap (kgcore's workers): the
        #: wrapped model, however many wrappers a retriever makes.
        self.model_identity = self.model
        self.callbacks = callbacks
        self.run_name_prefix = run_name_prefix
        self.sampling = sampling or SamplingPolicy()
        chat = underlying_chat_model(self.model)
        fields = getattr(type(chat), "model_fields", {}) if chat is not None else {}
        self._max_tokens_name = next((n for n in _MAX_TOKEN_FIELDS if n in fields), "max_tokens")
        self._takes_seed = "seed" in fields
        self._takes_fixed_prefix = "prefix_cache" in fields  # ChatLlamaCppLocal

    def call_kwargs(self, request: LLMRequest) -> dict[str, Any]:
        """Keyword arguments of the model call for ``request``: the policy's settings, and the
        request's sampling seed where the chat model has a ``seed`` field, and its fixed prefix
        (``fixed_prefix_messages``), run (``cache_scope``) and cancel event (``cancel_event``,
        set when the call's deadline passes) where it has a ``prefix_cache``
        (``ChatLlamaCppLocal``)."""
        settings = self.sampling.settings_for(request)
        if "max_tokens" in settings:
            settings[self._max_tokens_name] = settings.pop("max_tokens")
        if request.seed is not None and self._takes_seed:
            settings["seed"] = request.seed  # CoT-SC varies the seed per sample
        if request.fixed_prefix and self._takes_fixed_prefix:
            settings["fixed_prefix_messages"] = request.fixed_prefix
        if request.cache_scope is not None and self._takes_fixed_prefix:
            settings["cache_scope"] = request.cache_scope
        if request.cancel is not None and self._takes_fixed_prefix:
            settings["cancel_event"] = request.cancel  # ends the generation at the deadline
        return settings

    def run_name(self, purpose: str) -> str:
        """``<prefix>.<step>``; a purpose that repeats the prefix loses it (``cgpe.clues``)."""
        prefix = self.run_name_prefix
        step = purpose.removeprefix(f"{prefix}_") if prefix else purpose
        return f"{prefix}.{step}" if prefix else step

    def _config(self, request: LLMRequest) -> RunnableConfig:
        config: RunnableConfig = {
            "run_name": self.run_name(request.purpose),
            "tags": [self.run_name_prefix, request.purpose],
        }
        if self.callbacks is not None:
            config["callbacks"] = self.callbacks
        return config

    @staticmethod
    def _reply(message: Any) -> LLMReply:
        usage = getattr(message, "usage_metadata", None) or {}
        return LLMReply(
            text=message_text(message),
            prompt_tokens=usage.get("input_tokens"),
            completion_tokens=usage.get("output_tokens"),
        )

    def generate(self, request: LLMRequest) -> LLMReply:
        message = self.model.invoke(
            to_langchain_messages(request),
            config=self._config(request),
            **self.call_kwargs(request),
        )
        return self._reply(message)

    async def agenerate(self, request: LLMRequest) -> LLMReply:
        message = await self.model.ainvoke(
            to_langchain_messages(request),
            config=self._config(request),
            **self.call_kwargs(request),
        )
        return self._reply(message)
