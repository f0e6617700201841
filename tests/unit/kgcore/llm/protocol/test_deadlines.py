"""Every model call has a deadline, and its expiry frees its worker (issue 51, item 2).

- by default (``DEFAULT_RETRY``, ``RetryPolicy()``) a call is cut off after
  ``DEFAULT_LLM_TIMEOUT`` seconds, in ``run_steps``, ``arun_steps``, ``StepMethod.run`` and the
  evaluation harness;
- a model that honours ``LLMRequest.cancel`` ends its call at the deadline: no thread is left;
- a model that never returns and ignores ``cancel`` keeps at most ``max_abandoned`` worker
  threads however many runs use it; further calls are refused at once (transient);
- workers are reused, and a call runs in the caller's ``contextvars`` context.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from pathlib import Path

import pytest

from kgcore.exceptions import InvalidSettingError, LLMResponseError
from kgcore.llm import LLMReply, LLMRequest, run_steps
from kgcore.llm.protocol import (
    DEFAULT_LLM_TIMEOUT,
    DEFAULT_RETRY,
    ModelStuckError,
    RetryPolicy,
    is_transient,
    worker_stats,
)
from kgcore.methods.baselines import PromptBaseline
from kgeval import evaluate
from kgeval.datasets import Dataset, EvalExample

#: Released when the module's tests end, so no test run leaves blocked threads behind.
NEVER = threading.Event()


@pytest.fixture(autouse=True, scope="module")
def _release_stuck_models() -> object:
    yield
    NEVER.set()


class Stuck:
    """A model that never returns and ignores ``cancel`` (an arbitrary user model)."""

    def __init__(self) -> None:
        self.calls = 0

    def generate(self, request: LLMRequest) -> LLMReply:
        self.calls += 1
        NEVER.wait()
        return LLMReply("{Paris}")


class Cancellable:
    """A model that never returns on its own, but stops when the driver cancels the call (as
    the local llama.cpp model does)."""

    def __init__(self) -> None:
        self.cancelled = 0

    def generate(self, request: LLMRequest) -> LLMReply:
        assert request.cancel is not None
        request.cancel.wait()
        self.cancelled += 1
        return LLMReply("")


def ask(question: str = "q") -> object:
    reply = yield LLMRequest.from_prompt(question, purpose="io")
    return reply.text


def wait_until(condition: object, seconds: float = 3.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


def test_every_call_has_a_deadline_by_default() -> None:
    assert DEFAULT_RETRY.timeout == RetryPolicy().timeout == DEFAULT_LLM_TIMEOUT
    seen: list[float | None] = []

    class Recording:
        def generate(self, request: LLMRequest) -> LLMReply:
            seen.append(request.timeout)
            return LLMReply("{Paris}")

    assert PromptBaseline("io").run("capital of France?", Recording()).answer == "Paris"
    assert run_steps(ask(), Recording()) == "{Paris}"
    assert seen == [DEFAULT_LLM_TIMEOUT, DEFAULT_LLM_TIMEOUT]


@pytest.mark.parametrize(
    "bad", [{"timeout": 0}, {"timeout": 601}, {"timeout": float("nan")}, {"max_abandoned": 0}]
)
def test_bad_deadline_settings_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(InvalidSettingError):
        RetryPolicy(**bad)  # type: ignore[arg-type]


def test_a_cancellable_model_frees_its_worker_at_the_deadline() -> None:
    llm = Cancellable()
    before = threading.active_count()
    abandoned = worker_stats().abandoned
    retry = RetryPolicy(timeout=0.05, attempts=2, sleep=lambda _s: None)
    for _ in range(30):
        with pytest.raises(LLMResponseError, match="timeout"):
            PromptBaseline("io").run("q", llm, retry=retry)
    assert llm.cancelled >= 59  # every attempt cancelled and ended
    assert wait_until(lambda: worker_stats().abandoned == abandoned)
    assert threading.active_count() - before <= 2  # reused workers, not one per call


def test_a_model_that_never_returns_keeps_at_most_max_abandoned_threads() -> None:
    llm = Stuck()
    before = threading.active_count()
    retry = RetryPolicy(timeout=0.05, attempts=3, max_abandoned=2, sleep=lambda _s: None)
    started = time.perf_counter()
    for _ in range(100):
        with pytest.raises(LLMResponseError) as info:
            PromptBaseline("io").run("q", llm, retry=retry)
        assert info.value.step == "io"
    assert llm.calls == 2  # two calls hang; every later one is refused without a thread
    assert time.perf_counter() - started < 5.0
    assert threading.active_count() - before <= 2 + worker_stats().idle
    assert worker_stats().refused_total >= 98


def test_a_refused_call_is_transient_and_names_the_bound() -> None:
    error = ModelStuckError("the model still runs 2 calls past their deadline")
    assert is_transient(error) and isinstance(error, TimeoutError)


def test_the_async_driver_frees_a_cancellable_models_worker() -> None:
    llm = Cancellable()
    retry = RetryPolicy(timeout=0.05, attempts=1)
    abandoned = worker_stats().abandoned  # another test's stuck model may hold some

    async def main() -> None:
        for _ in range(10):
            with pytest.raises(LLMResponseError, match="timeout"):
                await PromptBaseline("io").arun("q", llm, retry=retry)

    asyncio.run(main())
    assert wait_until(lambda: llm.cancelled == 10 and worker_stats().abandoned == abandoned)


def test_workers_are_reused_and_see_the_callers_context() -> None:
    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="none")
    names: set[str] = set()

    class Reading:
        def generate(self, request: LLMRequest) -> LLMReply:
            names.add(threading.current_thread().name)
            return LLMReply(marker.get())

    marker.set("caller")
    for _ in range(20):
        assert run_steps(ask(), Reading()) == "caller"
    assert len(names) == 1 and threading.current_thread().name not in names


def test_the_evaluation_ends_with_a_model_that_never_returns(tmp_path: Path) -> None:
    data = Dataset("toy", [EvalExample(f"q{i}", f"question {i}?", ("x",)) for i in range(5)])
    started = time.perf_counter()
    run = evaluate(
        "io",
        data,
        Stuck(),
        out_dir=tmp_path,
        progress=False,
        plots=False,
        fail_fast=0,
        retry=RetryPolicy(timeout=0.1, attempts=2, sleep=lambda _s: None),
    )
    assert time.perf_counter() - started < 10.0
    assert all(r["error"] and "timeout" in r["error"] or "deadline" in r["error"]
               for r in run.records)  # fmt: skip
