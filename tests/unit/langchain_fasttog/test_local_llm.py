from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from langchain_fasttog import local_llm
from langchain_fasttog.local_llm import ChatLlamaCppLocal


@pytest.fixture
def llama_kwargs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """A stand-in ``llama_cpp`` module: records the keyword arguments each Llama gets."""
    made: list[dict[str, Any]] = []

    class FakeLlama:
        def __init__(self, **kwargs: Any) -> None:
            made.append(kwargs)

    monkeypatch.setitem(sys.modules, "llama_cpp", types.SimpleNamespace(Llama=FakeLlama))
    return made


def test_generation_threads_default_to_one_per_physical_core(
    llama_kwargs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local_llm, "llama_threads", lambda: 5)
    ChatLlamaCppLocal(model_path="model.gguf")._client()
    assert llama_kwargs[-1]["n_threads"] == 5


def test_given_threads_are_kept(llama_kwargs: list[dict[str, Any]]) -> None:
    ChatLlamaCppLocal(model_path="model.gguf", n_threads=3)._client()
    assert llama_kwargs[-1]["n_threads"] == 3
