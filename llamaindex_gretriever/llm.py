"""A LlamaIndex ``LlamaCPP`` LLM for the local GGUF models, with their ChatML chat template.

LlamaIndex's ``LlamaCPP`` formats prompts with a generic template unless it is given
``messages_to_prompt``/``completion_to_prompt``; Qwen2.5 and SmolLM2 expect ChatML. The prompts
here are written by llama-cpp's own ChatML formatter.

Example
-------
>>> llm = build_llamacpp_llm()  # the local Qwen2.5-Coder-1.5B GGUF  # doctest: +SKIP
>>> llm.complete("Say hi").text           # doctest: +SKIP
'Hi!'
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llama_index.core.base.llms.types import ChatMessage

from kgcore.exceptions import ConfigurationError, MissingDependencyError
from kglocal.locations import llama_threads, qwen_gguf_path

DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."
CHATML_STOP = "<|im_end|>"


def chatml_messages_to_prompt(
    messages: Sequence[ChatMessage], system_prompt: str | None = DEFAULT_SYSTEM_PROMPT
) -> str:
    """ChatML prompt of LlamaIndex chat messages, ending with the assistant's turn.

    A system message is added when the messages have none and ``system_prompt`` is set.

    Example
    -------
    >>> print(chatml_messages_to_prompt([ChatMessage(role="user", content="hi")]))
    <|im_start|>system
    You are a helpful assistant.<|im_end|>
    <|im_start|>user
    hi<|im_end|>
    <|im_start|>assistant
    <BLANKLINE>
    """
    from llama_cpp.llama_chat_format import format_chatml

    turns = [{"role": str(m.role.value), "content": m.content or ""} for m in messages]
    if system_prompt and not any(t["role"] == "system" for t in turns):
        turns.insert(0, {"role": "system", "content": system_prompt})
    return str(format_chatml(turns).prompt)


def chatml_completion_to_prompt(completion: str) -> str:
    """ChatML prompt of a single user turn (what ``LlamaCPP.complete`` sends)."""
    return chatml_messages_to_prompt([ChatMessage(role="user", content=completion)])


def build_llamacpp_llm(
    model_path: str | Path | None = None,
    temperature: float = 0.0,
    max_new_tokens: int = 256,
    context_window: int = 4096,
    n_threads: int | None = None,
    seed: int = 0,
    verbose: bool = False,
    **model_kwargs: Any,
) -> Any:
    """LlamaIndex ``LlamaCPP`` for a local GGUF with the ChatML template.

    Parameters
    ----------
    model_path : path, optional
        GGUF file. Default: the local Qwen2.5-Coder-1.5B-Instruct
        (:func:`kglocal.locations.qwen_gguf_path`).
    temperature, max_new_tokens, context_window : generation settings.
    n_threads : int, optional
        CPU threads for generation (default: one per physical core,
        :func:`kglocal.locations.llama_threads`).
    seed : int
        llama.cpp's sampling seed.
    verbose : bool
        llama.cpp's logging.
    """
    try:
        from llama_index.llms.llama_cpp import LlamaCPP
    except ImportError as err:  # pragma: no cover - depends on the install
        raise MissingDependencyError("llama-index-llms-llama-cpp", "llamaindex-local") from err
    if model_path is None:
        model_path = qwen_gguf_path()
    path = Path(model_path)
    if not path.is_file():
        raise ConfigurationError(f"GGUF model not found: {path}")
    threads = n_threads or llama_threads()
    return LlamaCPP(
        model_path=str(path),
        temperature=temperature,
        max_new_tokens=max_new_tokens,
        context_window=context_window,
        generate_kwargs={"stop": [CHATML_STOP]},
        model_kwargs={"n_threads": threads, "seed": seed, **model_kwargs},
        messages_to_prompt=chatml_messages_to_prompt,
        completion_to_prompt=chatml_completion_to_prompt,
        verbose=verbose,
    )
