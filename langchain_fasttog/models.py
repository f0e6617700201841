"""Chat models from short strings, as the CLI takes them.

``local`` is Qwen2.5-Coder-1.5B-Instruct and ``local-small`` SmolLM2-135M-Instruct, both run by
llama-cpp from the offline packages; anything else goes to LangChain's ``init_chat_model``
(``"openai:gpt-4o-mini"``, ``"ollama:llama3"``, ...).

Example
-------
>>> model = resolve_chat_model("local-small")  # doctest: +SKIP
"""

from __future__ import annotations

import importlib.util
from typing import Any

from langchain_core.language_models import BaseChatModel

from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kglocal.locations import qwen_gguf_path, smollm_gguf_path
from langchain_fasttog.llm import SamplingPolicy

#: Provider prefixes of ``init_chat_model`` and the package each needs.
PROVIDER_PACKAGES = {
    "openai": "langchain-openai",
    "azure_openai": "langchain-openai",
    "anthropic": "langchain-anthropic",
    "ollama": "langchain-ollama",
    "google_genai": "langchain-google-genai",
    "google_vertexai": "langchain-google-vertexai",
    "mistralai": "langchain-mistralai",
    "groq": "langchain-groq",
    "huggingface": "langchain-huggingface",
    "bedrock": "langchain-aws",
    "bedrock_converse": "langchain-aws",
    "fireworks": "langchain-fireworks",
    "together": "langchain-together",
    "deepseek": "langchain-deepseek",
    "xai": "langchain-xai",
}


def is_local(spec: str) -> bool:
    """Whether ``spec`` names one of the offline llama.cpp models."""
    return spec in ("local", "local-small")


def paper_sampling(spec: str) -> SamplingPolicy:
    """The CLI's ``--sampling paper`` preset for the model ``spec``.

    Every step runs at the method's (paper) temperature. The methods' token caps are applied to
    the local models only: a provider model may be a reasoning model, whose hidden reasoning
    counts against the cap, so it keeps its own limit.

    Example
    -------
    >>> paper_sampling("local").max_tokens, paper_sampling("openai:o3-mini").max_tokens
    (True, False)
    """
    return SamplingPolicy.paper(max_tokens=is_local(spec))


def resolve_chat_model(spec: str, **kwargs: Any) -> BaseChatModel:
    """A chat model for ``local``, ``local-small`` or a ``provider:model`` string."""
    from langchain_fasttog.local_llm import ChatLlamaCppLocal

    if is_local(spec) and importlib.util.find_spec("llama_cpp") is None:
        raise MissingDependencyError("llama-cpp-python", "local")  # as `kgqa ask --llm local`
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
        raise ConfigurationError(
            "provider:model strings need the `langchain` package: "
            "pip install 'kg-retrievers[langchain]'"
        ) from err
    provider = spec.split(":", 1)[0]
    try:
        return init_chat_model(spec, **kwargs)
    except ImportError as err:
        package = PROVIDER_PACKAGES.get(provider, getattr(err, "name", None) or "its package")
        raise ConfigurationError(
            f"model {spec!r} needs the {package} package: pip install {package}"
        ) from err
    except ValueError as err:  # an unknown provider
        raise ConfigurationError(f"cannot make a chat model of {spec!r}: {err}") from err
