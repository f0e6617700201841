"""Whatever a model raises ends as an ``LLMResponseError`` naming the step (issue 37, item 5),
and a synchronous model is cut off by the timeout."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import pytest

from kgcore.exceptions import ConfigurationError, KGRetrieverError, LLMResponseError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMReply, LLMRequest
from kgcore.llm.protocol import RetryPolicy
from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.cgpe import CGPE
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.methods.gretriever.qa import GRetrieverQA
from kgcore.methods.tog import ToG
from tests.support.fake_embedder import FakeEmbedder


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message")


class AuthenticationError(Exception):
    status_code = 401


def _unicode_error() -> UnicodeDecodeError:
    return UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")


#: Errors a model may raise that cannot heal: one call, then ``LLMResponseError``.
PERMANENT: list[Callable[[], Exception]] = [
    lambda: RuntimeError("CUDA error"),
    lambda: ValueError("bad logits"),
    lambda: KeyError("choices"),
    lambda: MemoryError(),
    lambda: RecursionError("maximum recursion depth exceeded"),
    _unicode_error,
    lambda: TypeError("NoneType is not subscriptable"),
    lambda: AttributeError("'NoneType' object has no attribute 'text'"),
    lambda: IndexError("list index out of range"),
    lambda: ZeroDivisionError("division by zero"),
    lambda: AssertionError("shape mismatch"),
    lambda: NotImplementedError(),
    lambda: StopIteration(),
    lambda: OverflowError("int too large"),
    lambda: OSError("disk full"),
    lambda: PermissionError("denied"),
    lambda: FileNotFoundError("model.gguf"),
    lambda: UnicodeEncodeError("ascii", "é", 0, 1, "ordinal not in range"),
    lambda: AuthenticationError("bad key"),
    Unprintable,
]
IDS = [
    "RuntimeError",
    "ValueError",
    "KeyError",
    "MemoryError",
    "RecursionError",
    "UnicodeDecodeError",
    "TypeError",
    "AttributeError",
    "IndexError",
    "ZeroDivisionError",
    "AssertionError",
    "NotImplementedError",
    "StopIteration",
    "OverflowError",
    "OSError",
    "PermissionError",
    "FileNotFoundError",
    "UnicodeEncodeError",
    "AuthenticationError",
    "Unprintable",
]


class Raising:
    """A sync model raising ``error`` on every call."""

    def __init__(self, error: Callable[[], BaseException]) -> None:
        self.error = error
        self.calls = 0

    def generate(self, request: LLMRequest) -> LLMReply:
        self.calls += 1
        raise self.error()


class AsyncRaising(Raising):
    async def agenerate(self, request: LLMRequest) -> LLMReply:
        self.calls += 1
        raise self.error()


def no_wait() -> RetryPolicy:
    return RetryPolicy(attempts=3, sleep=lambda seconds: None)


@pytest.mark.parametrize("error", PERMANENT, ids=IDS)
def test_a_model_error_that_cannot_heal_ends_as_llm_response_error(
    error: Callable[[], Exception],
) -> None:
    llm = Raising(error)
    with pytest.raises(LLMResponseError, match="step 'io' failed") as info:
        PromptBaseline("io").run("capital of France?", llm, retry=no_wait())
    assert info.value.step == "io"
    assert type(info.value.__cause__) is type(error())
    assert llm.calls == 1  # not retried


@pytest.mark.parametrize("error", PERMANENT, ids=IDS)
@pytest.mark.parametrize("kind", ["async-model", "sync-model", "sync-model-timeout"])
def test_the_async_driver_ends_the_same_way(error: Callable[[], Exception], kind: str) -> None:
    llm = AsyncRaising(error) if kind == "async-model" else Raising(error)
    retry = RetryPolicy(timeout=5.0 if kind.endswith("timeout") else None)
    with pytest.raises(LLMResponseError) as info:
        asyncio.run(PromptBaseline("cot").arun("capital of France?", llm, retry=retry))
    assert info.value.step == "cot"
    assert llm.calls == 1


@pytest.mark.parametrize(
    ("error", "calls"),
    [(ConnectionResetError("peer"), 3), (TimeoutError("read"), 3), (MemoryError(), 1)],
    ids=["ConnectionResetError", "TimeoutError", "MemoryError"],
)
def test_transient_errors_are_still_retried_then_named(error: Exception, calls: int) -> None:
    llm = Raising(lambda: error)
    with pytest.raises(LLMResponseError) as info:
        PromptBaseline("io").run("q", llm, retry=no_wait())
    assert (info.value.step, llm.calls) == ("io", calls)
    assert f"{type(error).__name__}: " in str(info.value)


def test_our_own_errors_pass_as_they_are_and_get_the_step() -> None:
    with pytest.raises(ConfigurationError, match="no model file"):
        PromptBaseline("io").run("q", Raising(lambda: ConfigurationError("no model file")))
    with pytest.raises(LLMResponseError) as info:
        PromptBaseline("io").run("q", Raising(lambda: LLMResponseError("empty choices")))
    assert info.value.step == "io"


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_an_interrupt_is_not_swallowed(error: type[BaseException]) -> None:
    with pytest.raises(error):
        PromptBaseline("io").run("q", Raising(error))


TRIPLES = [
    ("Giant", "directed_by", "George Stevens"),
    ("Shane", "directed_by", "George Stevens"),
    ("Giant", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "release_year", "1956"),
]


def _methods() -> dict[str, Callable[[InMemoryGraphStore], object]]:
    return {
        "fasttog": lambda store: FastToG(store, FastToGConfig()),
        "fasttog-node": lambda store: FastToG(store, FastToGConfig.node_level()),
        "tog": ToG,
        "cgpe": CGPE,
        "gretriever": lambda store: GRetrieverQA(store, embedder=FakeEmbedder(dim=16)),
        "io": lambda store: PromptBaseline("io"),
        "cot": lambda store: PromptBaseline("cot"),
        "cot-sc": lambda store: PromptBaseline("cot-sc", n=3),
    }


@pytest.mark.parametrize("method", list(_methods()))
@pytest.mark.parametrize("error", PERMANENT[:6], ids=IDS[:6])
def test_every_method_ends_a_model_error_as_llm_response_error(
    method: str, error: Callable[[], Exception]
) -> None:
    engine = _methods()[method](InMemoryGraphStore.from_triples(TRIPLES))
    llm = Raising(error)
    with pytest.raises(KGRetrieverError) as info:
        engine.run("who directed [Giant]", llm, retry=no_wait())  # type: ignore[attr-defined]
    assert isinstance(info.value, LLMResponseError)
    assert info.value.step  # the step is named (the first request's purpose)
    assert llm.calls == 1


class Slow:
    """A sync model that takes ``seconds`` to reply (6 s in the issue's reproduction)."""

    def __init__(self, seconds: float = 6.0) -> None:
        self.seconds = seconds
        self.calls = 0
        self.stop = threading.Event()

    def generate(self, request: LLMRequest) -> LLMReply:
        self.calls += 1
        self.stop.wait(self.seconds)
        return LLMReply("{Paris}")


def test_a_slow_sync_model_is_cut_off_by_the_timeout() -> None:
    llm = Slow(6.0)
    started = time.perf_counter()
    try:
        with pytest.raises(LLMResponseError, match="timeout of 1 s") as info:
            PromptBaseline("io").run("q", llm, retry=RetryPolicy(timeout=1.0, attempts=1))
    finally:
        llm.stop.set()  # release the abandoned worker thread
    assert 0.9 <= time.perf_counter() - started < 2.0
    assert info.value.step == "io" and isinstance(info.value.__cause__, TimeoutError)


def test_each_attempt_is_cut_off_and_retried() -> None:
    llm = Slow(6.0)
    waits: list[float] = []
    # three calls left running past their deadline: allowed here (the default bound is 2)
    retry = RetryPolicy(timeout=0.2, attempts=3, max_abandoned=3, sleep=waits.append)
    started = time.perf_counter()
    try:
        with pytest.raises(LLMResponseError, match="after 3 attempts"):
            PromptBaseline("io").run("q", llm, retry=retry)
    finally:
        llm.stop.set()
    assert llm.calls == 3 and len(waits) == 2
    assert time.perf_counter() - started < 2.0


def test_the_async_driver_cuts_off_a_slow_sync_model_too() -> None:
    llm = Slow(6.0)
    started = time.perf_counter()
    try:
        with pytest.raises(LLMResponseError, match="timeout"):
            asyncio.run(
                PromptBaseline("io").arun("q", llm, retry=RetryPolicy(timeout=0.5, attempts=1))
            )
    finally:
        llm.stop.set()
    assert time.perf_counter() - started < 2.0


def test_a_fast_sync_model_with_a_timeout_answers_as_before() -> None:
    llm = Slow(0.0)
    result = PromptBaseline("io").run("q", llm, retry=RetryPolicy(timeout=5.0))
    assert result.answer == "Paris" and llm.calls == 1


def test_the_models_own_timeout_keeps_its_message() -> None:
    llm = Raising(lambda: TimeoutError("read timed out"))
    retry = RetryPolicy(timeout=5.0, attempts=1)
    with pytest.raises(LLMResponseError, match="TimeoutError: read timed out"):
        PromptBaseline("io").run("q", llm, retry=retry)
