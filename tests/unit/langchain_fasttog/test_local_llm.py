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


class LoopingLlama:
    """A stand-in ``Llama`` whose reply loops on "ab" until its logits processor ends it."""

    calls: list[dict[str, Any]] = []

    def __init__(self, **kwargs: Any) -> None:
        pass

    def token_eos(self) -> int:
        return 0

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        import numpy as np

        LoopingLlama.calls.append(kwargs)
        processors = kwargs.get("logits_processor") or []
        tokens = [7, 8, 9]  # the prompt
        text, finish = "", "length"
        for step in range(kwargs["max_tokens"]):
            scores = np.zeros(4, dtype=np.float32)
            scores[1 + step % 2] = 1.0  # "a", "b", "a", ...
            for processor in processors:
                scores = processor(np.array(tokens), scores)
            token = int(scores.argmax())
            if token == 0:
                finish = "stop"
                break
            tokens.append(token)
            text += "ab"[token - 1]
        return {
            "choices": [{"message": {"content": text}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 3, "completion_tokens": len(tokens) - 3},
        }


@pytest.fixture
def looping(monkeypatch: pytest.MonkeyPatch) -> type[LoopingLlama]:
    LoopingLlama.calls = []
    monkeypatch.setitem(sys.modules, "llama_cpp", types.SimpleNamespace(Llama=LoopingLlama))
    return LoopingLlama


def test_a_looping_reply_is_ended_early(looping: type[LoopingLlama]) -> None:
    reply = ChatLlamaCppLocal(model_path="model.gguf", max_tokens=256).invoke("list genres")
    assert 48 <= len(str(reply.content)) < 64  # stopped soon after the loop is plain
    assert reply.response_metadata["finish_reason"] == "repetition"
    assert reply.usage_metadata["output_tokens"] == len(str(reply.content))  # type: ignore[index]


def test_stop_loops_off_lets_the_reply_run_to_the_cap(looping: type[LoopingLlama]) -> None:
    chat = ChatLlamaCppLocal(model_path="model.gguf", max_tokens=100, stop_loops=False)
    reply = chat.invoke("list genres")
    assert len(str(reply.content)) == 100 and looping.calls[-1]["logits_processor"] is None
    assert reply.response_metadata["finish_reason"] == "length"


class LaterEvent:
    """A cancel event that reads as set from its ``after``-th check on (the deadline passing
    mid-generation)."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.checks = 0

    def is_set(self) -> bool:
        self.checks += 1
        return self.checks >= self.after


def test_a_cancelled_call_ends_its_generation(looping: type[LoopingLlama]) -> None:
    """Issue 51: the driver sets the request's cancel event at the deadline; the generation
    stops at its next token, so the worker thread is free."""
    chat = ChatLlamaCppLocal(model_path="model.gguf", max_tokens=10_000, stop_loops=False)
    reply = chat.invoke("list genres", cancel_event=LaterEvent(after=10))
    assert 5 <= len(str(reply.content)) < 12
    assert reply.response_metadata["finish_reason"] == "cancelled"


def test_a_call_cancelled_while_it_waited_does_not_generate(looping: type[LoopingLlama]) -> None:
    chat = ChatLlamaCppLocal(model_path="model.gguf", max_tokens=100)
    reply = chat.invoke("list genres", cancel_event=LaterEvent(after=1))
    assert reply.content == "" and reply.response_metadata["finish_reason"] == "cancelled"
    assert looping.calls == []


def test_the_driver_deadline_stops_a_local_model_that_would_never_end(
    looping: type[LoopingLlama],
) -> None:
    """Through the kgcore driver: a reply with no end (no loop stop, no token cap to speak of)
    is cut off at the deadline, and the worker thread is freed, not abandoned."""
    from kgcore.exceptions import LLMResponseError
    from kgcore.llm.protocol import LLMRequest, RetryPolicy, run_steps, worker_stats
    from langchain_fasttog.llm import LangChainLLM

    def ask() -> Any:
        reply = yield LLMRequest.from_prompt("list genres", purpose="io", max_tokens=10**9)
        return reply.text

    chat = ChatLlamaCppLocal(model_path="model.gguf", max_tokens=10**9, stop_loops=False)
    llm = LangChainLLM(chat)
    abandoned = worker_stats().abandoned_total
    retry = RetryPolicy(timeout=0.2, attempts=1)
    with pytest.raises(LLMResponseError, match="timeout of 0.2 s"):
        run_steps(ask(), llm, retry)
    assert worker_stats().abandoned_total == abandoned  # it ended within the grace
    assert looping.calls and looping.calls[-1]["logits_processor"]
