"""Chat models from short strings, as the CLI takes them.

``local`` is Qwen2.5-Coder-1.5B-Instruct and ``local-small`` SmolLM2-135M-Instruct, both run by
llama-cpp from the offline packages; anything else goes to LangChain's ``init_chat_model``
(``"openai:gpt-4o-mini"``, ``"ollama:llama3"``, ...).

Example
-------
>>> model = resolve_chat_model("local-small")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel

from kgcore.exceptions import ConfigurationError
from kgcore.local_models import qwen_gguf_path, smollm_gguf_path


def resolve_chat_model(spec: str, **kwargs: Any) -> BaseChatModel:
    """A chat model for ``local``, ``local-small`` or a ``provider:model`` string."""
    from langchain_fasttog.local_llm import ChatLlamaCppLocal

    if spec == "local":
        return ChatLlamaCppLocal(model_path=str(qwen_gguf_path()), chat_format="chatml", **kwargs)
    if spec == "local-small":
        return ChatLlamaCppLocal(model_path=str(smollm_gguf_path()), chat_format="chatml", **kwargs)
    if ":" not in spec:
        raise ConfigurationError(
            f"unknown model {spec!r}: use 'local', 'local-small' or 'provider:model' "
            "(e.g. 'openai:gpt-4o-mini')"
        )
    try:
        from langchain.chat_models import init_chat_model
    except ImportError as err:
        raise ConfigurationError("provider:model strings need the `langchain` package") from err
    return init_chat_model(spec, **kwargs)
