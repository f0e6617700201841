from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage

from kgcore.exceptions import ConfigurationError
from llamaindex_gretriever import (
    build_llamacpp_llm,
    chatml_completion_to_prompt,
    chatml_messages_to_prompt,
)


def test_chatml_prompt_of_a_conversation() -> None:
    prompt = chatml_messages_to_prompt(
        [
            ChatMessage(role="system", content="Be brief."),
            ChatMessage(role="user", content="Who directed Giant?"),
        ]
    )
    assert prompt == (
        "<|im_start|>system\nBe brief.<|im_end|>\n"
        "<|im_start|>user\nWho directed Giant?<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_completion_prompt_gets_a_default_system_turn() -> None:
    prompt = chatml_completion_to_prompt("hi")
    assert prompt.startswith("<|im_start|>system\nYou are a helpful assistant.<|im_end|>")
    assert prompt.endswith("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")


def test_missing_model_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        build_llamacpp_llm(tmp_path / "missing.gguf")


def test_generation_threads_default_to_one_per_physical_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import llama_index.llms.llama_cpp as llama_cpp_llms

    import llamaindex_gretriever.llm as gretriever_llm

    made: list[dict[str, Any]] = []

    def fake_llamacpp(**kwargs: Any) -> dict[str, Any]:
        made.append(kwargs)
        return kwargs

    monkeypatch.setattr(llama_cpp_llms, "LlamaCPP", fake_llamacpp)
    monkeypatch.setattr(gretriever_llm, "llama_threads", lambda: 5)
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    build_llamacpp_llm(model)
    assert made[-1]["model_kwargs"]["n_threads"] == 5
    build_llamacpp_llm(model, n_threads=2)
    assert made[-1]["model_kwargs"]["n_threads"] == 2
