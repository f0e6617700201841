"""A per-question cost cap for every method (issue 39): ``max_llm_calls`` and
``max_prompt_tokens`` stop a run cleanly, with its best answer so far or ``Unknown``, and the
result says which limit stopped it."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from kgcore.builder import build_method
from kgcore.exceptions import ConfigurationError, InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMReply, LLMRequest, ScriptedLLM
from kgcore.llm.protocol import run_steps
from kgcore.methods.base import StepMethod
from kgcore.methods.kernel import BUDGET_KEY, Budget, within_budget
from kgcore.methods.kernel.budget import estimated_prompt_tokens
from kgcore.methods.result import MethodResult
from kgcore.validation import UNKNOWN, answer_phrase
from kgeval.registry import check_options
from tests.support.fake_embedder import FakeEmbedder

TRIPLES = [
    ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    ("Cleopatra", "starred_actors", "Elizabeth Taylor"),
    ("Cleopatra", "release_year", "1963"),
    ("Giant", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "directed_by", "George Stevens"),
    ("Joseph L. Mankiewicz", "directed", "All About Eve"),
    ("All About Eve", "starred_actors", "Bette Davis"),
    ("George Stevens", "directed", "Shane"),
]
QUESTION = "what films did the director of [Cleopatra] direct"
#: Replies that keep every method going (each step's last reply answers its later requests).
REPLIES = {
    "extract_entities": ['["Cleopatra"]'],
    "prune": ["{1}"],
    "reason": ["{Unknown}"],
    "tog_relations": ["{A: 1.0}"],
    "tog_entities": ["{A: 1.0}"],
    "tog_reason": ["{Unknown}"],
    "cgpe_clues": ['["Cleopatra", "director", "films"]'],
    "cgpe_step1": ["{A: director}"],
    "cgpe_step2": ["{A}"],
    "cgpe_step3": ["{A: films}"],
    "cgpe_answer": ["{Unknown}"],
    "gretriever_answer": [""],  # unusable: asked again
    "io": ["{Paris}"],
    "cot": ["So {Paris}"],
    "cot_sc": ["So {Paris}"],
}
#: Every method of the issue, and the calls it makes without a cap on :data:`REPLIES` at least.
METHODS = {
    "fasttog": 3,
    "fasttog-node": 3,
    "tog": 3,
    "cgpe": 3,
    "gretriever": 2,
    "io": 1,
    "cot": 1,
    "cot-sc": 3,
}
OPTIONS: dict[str, dict[str, Any]] = {
    "fasttog": {"first_choice": "llm", "chain_choice": "llm"},
    "fasttog-node": {"first_choice": "llm", "chain_choice": "llm"},
}


def scripted() -> ScriptedLLM:
    return ScriptedLLM.by_purpose(REPLIES, repeat_last=True)


def engine(method: str, **options: Any) -> Any:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    embeddings = FakeEmbedder(dim=64) if method == "gretriever" else None
    graph = None if method in ("io", "cot", "cot-sc") else store
    return build_method(
        method, graph, embeddings=embeddings, options=OPTIONS.get(method, {}), **options
    )


def unscoped(requests: list[LLMRequest]) -> list[LLMRequest]:
    """The requests without their run's cache scope (a new one each run)."""
    return [replace(r, cache_scope=None) for r in requests]


def uncapped_calls(method: str) -> int:
    llm = scripted()
    result = engine(method).run(QUESTION, llm)
    assert result.llm_calls == len(llm.requests)
    assert BUDGET_KEY not in result.extra
    return result.llm_calls


@pytest.mark.parametrize("cap", [1, 2])
@pytest.mark.parametrize("method", list(METHODS))
def test_max_llm_calls_stops_every_method(method: str, cap: int) -> None:
    free = uncapped_calls(method)
    assert free >= METHODS[method]
    llm = scripted()
    result = engine(method).run(QUESTION, llm, budget=Budget(max_llm_calls=cap))
    assert len(llm.requests) == result.llm_calls == min(cap, free)
    assert result.answer == UNKNOWN or answer_phrase(result.answer) == result.answer
    if free > cap:
        assert result.extra[BUDGET_KEY] == "max_llm_calls"
    else:
        assert BUDGET_KEY not in result.extra


@pytest.mark.parametrize("method", list(METHODS))
def test_max_llm_calls_holds_on_the_async_path(method: str) -> None:
    llm = scripted()
    result = asyncio.run(engine(method).arun(QUESTION, llm, budget=Budget(max_llm_calls=1)))
    assert len(llm.requests) == result.llm_calls == 1


@pytest.mark.parametrize("method", list(METHODS))
def test_a_method_option_sets_the_budget_as_kgqa_eval_set_does(method: str) -> None:
    check_options(method, {"max_llm_calls": 2})
    llm = scripted()
    capped = engine(method, max_llm_calls=2)
    assert capped.budget == Budget(max_llm_calls=2)
    result = capped.run(QUESTION, llm)
    assert len(llm.requests) == result.llm_calls <= 2
    # Budget() lifts the method's own cap for one run
    assert capped.run(QUESTION, scripted(), budget=Budget()).llm_calls == uncapped_calls(method)


@pytest.mark.parametrize("method", list(METHODS))
def test_a_prompt_token_cap_below_the_first_prompt_sends_nothing(method: str) -> None:
    llm = scripted()
    result = engine(method).run(QUESTION, llm, budget=Budget(max_prompt_tokens=1))
    assert llm.requests == []
    assert (result.answer, result.llm_calls) == (UNKNOWN, 0)
    assert result.extra[BUDGET_KEY] == "max_prompt_tokens"


@pytest.mark.parametrize("method", ["fasttog", "tog", "cgpe", "cot-sc"])
def test_max_prompt_tokens_bounds_the_reported_prompt_tokens(method: str) -> None:
    free = scripted()
    full = engine(method).run(QUESTION, free)
    cap = estimated_prompt_tokens(free.requests[0])  # the first request fits, not the whole run
    assert full.prompt_tokens is not None and full.prompt_tokens > cap
    llm = scripted()
    result = engine(method).run(QUESTION, llm, budget=Budget(max_prompt_tokens=cap))
    assert 1 <= len(llm.requests) < len(free.requests)
    assert result.prompt_tokens is not None and result.prompt_tokens <= cap
    assert result.extra[BUDGET_KEY] == "max_prompt_tokens"


def test_cot_sc_keeps_the_majority_of_the_samples_it_has() -> None:
    llm = ScriptedLLM(["So {Lyon}", "So {Paris}", "So {Paris}"])
    result = engine("cot-sc").run("capital of France?", llm, budget=Budget(max_llm_calls=3))
    assert result.answer == "Paris"
    assert result.extra["samples"] == ["Lyon", "Paris", "Paris", UNKNOWN, UNKNOWN]
    assert (result.llm_calls, result.extra[BUDGET_KEY]) == (3, "max_llm_calls")


def test_no_budget_and_an_unlimited_budget_change_nothing() -> None:
    for method in METHODS:
        plain, unlimited = scripted(), scripted()
        a = engine(method).run(QUESTION, plain)
        b = engine(method).run(QUESTION, unlimited, budget=Budget())
        assert (a.answer, a.llm_calls, a.prompt_tokens) == (b.answer, b.llm_calls, b.prompt_tokens)
        assert unscoped(plain.requests) == unscoped(unlimited.requests)
        assert BUDGET_KEY not in b.extra


def test_a_model_cannot_claim_its_reply_was_not_sent() -> None:
    class Liar:
        def generate(self, request: LLMRequest) -> LLMReply:
            return LLMReply(text="{Paris}", sent=False)

    result = engine("io").run("capital of France?", Liar(), budget=Budget(max_llm_calls=1))
    assert (result.answer, result.llm_calls) == ("Paris", 1)


def test_within_budget_marks_only_a_result_with_extra() -> None:
    def two() -> Any:
        yield LLMRequest.from_prompt("a", purpose="io")
        yield LLMRequest.from_prompt("b", purpose="io")
        return "done"

    llm = ScriptedLLM(["x", "y"])
    assert run_steps(within_budget(two(), Budget(max_llm_calls=1)), llm) == "done"
    assert len(llm.requests) == 1


BAD_BUDGETS: list[dict[str, Any]] = [
    {"max_llm_calls": 0},
    {"max_llm_calls": -1},
    {"max_llm_calls": 2.5},
    {"max_llm_calls": True},
    {"max_llm_calls": "2"},
    {"max_prompt_tokens": 0},
    {"max_prompt_tokens": 1.5},
    {"max_calls": 2},
]


@pytest.mark.parametrize("bad", BAD_BUDGETS, ids=repr)
def test_bad_budget_settings_are_refused_when_made(bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidSettingError, match="Budget"):
        Budget(**bad)
    with pytest.raises(ConfigurationError):
        check_options("tog", bad)


@pytest.mark.parametrize("value", ["2", 2, object()])
def test_a_method_budget_must_be_a_budget(value: Any) -> None:
    method: StepMethod[MethodResult] = engine("io")
    with pytest.raises(InvalidSettingError, match="budget must be"):
        method.budget = value
    with pytest.raises(InvalidSettingError, match="budget must be"):
        method.run("capital of France?", scripted(), budget=value)
    assert method.with_budget(max_llm_calls=1).budget == Budget(max_llm_calls=1)
