"""Adapter from any LangChain chat model to the kgcore LLM protocol.

Every call goes through the callback manager given at construction, as a child run named after
its step (``fasttog.prune``, ``fasttog.reason``, ...), so traces show each pruning and reasoning
step. Token counts come from the message's ``usage_metadata`` when the model reports them.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> from kgcore.llm import LLMRequest
>>> llm = LangChainLLM(FakeListChatModel(responses=["{A}"]))
>>> llm.generate(LLMRequest.from_prompt("pick", purpose="prune")).text
'{A}'
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManager, CallbackManager
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig

from kgcore.llm.protocol import LLMReply, LLMRequest

_ROLES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
#: Field names chat-model integrations use for the generation cap.
_MAX_TOKEN_FIELDS = ("max_tokens", "max_output_tokens", "max_new_tokens", "num_predict")


def to_langchain_messages(request: LLMRequest) -> list[BaseMessage]:
    return [_ROLES[m.role](content=m.content) for m in request.messages]


def message_text(message: BaseMessage) -> str:
    """Plain text of a reply, whether ``content`` is a string or a list of blocks."""
    text = getattr(message, "text", None)
    if isinstance(text, str):  # langchain-core >= 1.0: a property
        return str(text)
    if callable(text):  # langchain-core < 1.0: a method
        return str(text())
    return str(message.content)


class LangChainLLM:
    """A LangChain chat model seen through the kgcore :class:`~kgcore.llm.ChatLLM` protocol.

    Parameters
    ----------
    model : BaseChatModel
        Any LangChain chat model.
    callbacks : CallbackManager or AsyncCallbackManager, optional
        Parent of the child runs (a retriever's or chain's ``run_manager.get_child()``).
    run_name_prefix : str
        Prefix of each step's run name.
    """

    def __init__(
        self,
        model: BaseChatModel,
        callbacks: CallbackManager | AsyncCallbackManager | None = None,
        run_name_prefix: str = "fasttog",
    ) -> None:
        self.model = model
        self.callbacks = callbacks
        self.run_name_prefix = run_name_prefix
        self._configured: dict[tuple[float, int, int | None], BaseChatModel] = {}

    def _model_for(self, request: LLMRequest) -> BaseChatModel:
        """The model with the request's temperature and token cap, where it has such fields."""
        key = (request.temperature, request.max_tokens, request.seed)
        if key not in self._configured:
            fields = getattr(type(self.model), "model_fields", {})
            update: dict[str, Any] = {}
            if "temperature" in fields:
                update["temperature"] = request.temperature
            for name in _MAX_TOKEN_FIELDS:
                if name in fields:
                    update[name] = request.max_tokens
                    break
            if request.seed is not None and "seed" in fields:
                update["seed"] = request.seed
            self._configured[key] = self.model.model_copy(update=update) if update else self.model
        return self._configured[key]

    def _config(self, request: LLMRequest) -> RunnableConfig:
        config: RunnableConfig = {
            "run_name": f"{self.run_name_prefix}.{request.purpose}",
            "tags": [self.run_name_prefix, request.purpose],
        }
        if self.callbacks is not None:
            config["callbacks"] = self.callbacks
        return config

    @staticmethod
    def _reply(message: BaseMessage) -> LLMReply:
        usage = getattr(message, "usage_metadata", None) or {}
        return LLMReply(
            text=message_text(message),
            prompt_tokens=usage.get("input_tokens"),
            completion_tokens=usage.get("output_tokens"),
        )

    def generate(self, request: LLMRequest) -> LLMReply:
        model = self._model_for(request)
        return self._reply(
            model.invoke(to_langchain_messages(request), config=self._config(request))
        )

    async def agenerate(self, request: LLMRequest) -> LLMReply:
        model = self._model_for(request)
        message = await model.ainvoke(to_langchain_messages(request), config=self._config(request))
        return self._reply(message)
