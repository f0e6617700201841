"""Transient model errors are retried with backoff; the rest fail clearly."""

from __future__ import annotations

import asyncio

import pytest

from kgcore.exceptions import InvalidSettingError, LLMResponseError
from kgcore.llm import LLMReply, LLMRequest, run_steps
from kgcore.llm.protocol import RetryPolicy, arun_steps, is_transient
from kgcore.methods.baselines import PromptBaseline


class RateLimitError(Exception):
    status_code = 429


class AuthenticationError(Exception):
    status_code = 401


class BadRequestError(Exception):
    pass


class Flaky:
    """Raises the given errors in turn, then answers."""

    def __init__(self, errors: list[BaseException], text: str = "{Paris}") -> None:
        self.errors = list(errors)
        self.text = text
        self.calls = 0
        self.timeouts: list[float | None] = []

    def generate(self, request: LLMRequest) -> LLMReply:
        self.calls += 1
        self.timeouts.append(request.timeout)
        if self.errors:
            raise self.errors.pop(0)
        return LLMReply(self.text)


def policy(**kwargs: object) -> tuple[RetryPolicy, list[float]]:
    waits: list[float] = []
    return RetryPolicy(sleep=waits.append, **kwargs), waits  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "error", [ConnectionError("reset"), TimeoutError("slow"), RateLimitError("429")]
)
def test_transient_errors_are_retried_with_exponential_backoff(error: Exception) -> None:
    retry, waits = policy(attempts=3, base_delay=1.0, max_delay=8.0, seed=7)
    llm = Flaky([error, error])
    result = PromptBaseline("io").run("capital of France?", llm, retry=retry)
    assert result.answer == "Paris" and llm.calls == 3
    assert len(waits) == 2
    assert 0.5 <= waits[0] < 1.0 and 1.0 <= waits[1] < 2.0  # base * 2**k, jitter in [0.5, 1)
    again, waits_again = policy(attempts=3, base_delay=1.0, max_delay=8.0, seed=7)
    PromptBaseline("io").run("capital of France?", Flaky([error, error]), retry=again)
    assert waits_again == waits  # seeded jitter: runs repeat


def test_after_the_budget_the_error_names_the_step_and_cause() -> None:
    retry, waits = policy(attempts=2)
    llm = Flaky([ConnectionError("peer reset")] * 5)
    with pytest.raises(LLMResponseError, match="step 'io' failed after 2 attempts") as info:
        PromptBaseline("io").run("q", llm, retry=retry)
    assert info.value.step == "io"
    assert "ConnectionError: peer reset" in str(info.value)
    assert isinstance(info.value.__cause__, ConnectionError)
    assert llm.calls == 2 and len(waits) == 1


@pytest.mark.parametrize("error", [AuthenticationError("bad key"), BadRequestError("too long")])
def test_errors_that_cannot_heal_are_not_retried(error: Exception) -> None:
    retry, waits = policy(attempts=5)
    llm = Flaky([error])
    with pytest.raises(LLMResponseError, match="step 'io' failed .*cannot heal") as info:
        PromptBaseline("io").run("q", llm, retry=retry)
    assert info.value.step == "io" and info.value.__cause__ is error
    assert llm.calls == 1 and waits == []


def test_fallback_mode_answers_unknown_and_stops_waiting() -> None:
    retry, waits = policy(attempts=3, on_failure="fallback")
    llm = Flaky([ConnectionError("down")] * 100)
    result = PromptBaseline("cot-sc", n=4).run("q", llm, retry=retry)
    assert result.answer == "Unknown"
    # the first call spends the budget (3 attempts, 2 waits); the next three get one each
    assert llm.calls == 3 + 3 and len(waits) == 2


def test_per_call_timeout_reaches_the_model_and_cancels_an_async_one() -> None:
    retry, _ = policy(timeout=5.0)
    llm = Flaky([])
    PromptBaseline("io").run("q", llm, retry=retry)
    assert llm.timeouts == [5.0]

    class Stalled:
        calls = 0

        async def agenerate(self, request: LLMRequest) -> LLMReply:
            self.calls += 1
            await asyncio.sleep(60)
            return LLMReply("{late}")

    stalled = Stalled()
    short, waits = policy(timeout=0.05, attempts=2)
    with pytest.raises(LLMResponseError, match="TimeoutError"):
        asyncio.run(PromptBaseline("io").arun("q", stalled, retry=short))
    assert stalled.calls == 2 and len(waits) == 1


def test_async_driver_retries_transient_errors() -> None:
    retry, waits = policy(attempts=3)
    llm = Flaky([RateLimitError("slow down")])

    def steps():
        reply = yield LLMRequest.from_prompt("q", purpose="io")
        return reply.text

    assert asyncio.run(arun_steps(steps(), llm, retry)) == "{Paris}"
    assert run_steps(steps(), Flaky([ConnectionError()]), retry) == "{Paris}"


def test_classification_and_policy_limits() -> None:
    class ServiceUnavailableError(Exception):
        pass

    class APIConnectionError(Exception):
        pass

    assert is_transient(ServiceUnavailableError()) and is_transient(APIConnectionError())
    assert not is_transient(PermissionError("denied")) and not is_transient(KeyError("x"))
    assert not is_transient(LLMResponseError("x"))
    for bad in (
        {"attempts": 0},
        {"attempts": 50},
        {"max_delay": 600},
        {"timeout": 0},
        {"on_failure": "ignore"},
    ):
        with pytest.raises(InvalidSettingError):
            RetryPolicy(**bad)  # type: ignore[arg-type]
