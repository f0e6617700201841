"""CoT-SC and the prompt-only baseline engine."""

from __future__ import annotations

import pytest

from kgcore.exceptions import InvalidQuestionError
from kgcore.llm import ScriptedLLM, run_steps
from kgcore.llm.parsing import parse_answer
from kgcore.llm.protocol import UsageMeter
from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.kernel import UNKNOWN, ask_parsed, cot_sc_steps, io_request, majority_answer


def test_cot_sc_makes_n_sampled_calls_and_votes_on_normalised_answers() -> None:
    llm = ScriptedLLM(
        [
            "so {The Matrix}",
            "{Speed}",
            "{matrix!}",
            "Not sure.\nNo idea.",
            "{Speed}",
            "{the matrix}",
        ]
    )
    result = run_steps(cot_sc_steps("which film?", n=6, temperature=0.8), llm)
    assert result.answer == "The Matrix"
    assert result.extra["votes"] == 3
    assert result.extra["samples"][3] == UNKNOWN
    assert result.llm_calls == 6
    assert result.method == "cot-sc"
    assert all(r.temperature == 0.8 and r.purpose == "cot_sc" for r in llm.requests)


def test_unknown_only_wins_when_nothing_else_was_said() -> None:
    assert majority_answer([UNKNOWN, UNKNOWN, "Lyon"]) == ("Lyon", 1)
    assert majority_answer([UNKNOWN, UNKNOWN]) == (UNKNOWN, 2)


def test_ties_are_broken_by_the_seed_reproducibly() -> None:
    answers = ["A", "B", "C"]
    first = {majority_answer(answers, seed=s)[0] for s in range(3)}
    assert majority_answer(answers, seed=7) == majority_answer(answers, seed=7)
    assert first <= {"A", "B", "C"}
    winners = {majority_answer(answers, seed=s)[0] for s in range(40)}
    assert len(winners) > 1  # the seed, not the input order, decides


def test_cot_sc_refuses_bad_input() -> None:
    with pytest.raises(ValueError):
        run_steps(cot_sc_steps("q", n=0), ScriptedLLM([]))
    with pytest.raises(InvalidQuestionError):
        run_steps(cot_sc_steps("   "), ScriptedLLM([]))


@pytest.mark.parametrize(("kind", "calls"), [("io", 1), ("cot", 1), ("cot-sc", 3)])
def test_prompt_baseline_engine_counts_calls(kind: str, calls: int) -> None:
    engine = PromptBaseline(kind, n=3)
    llm = ScriptedLLM(lambda request: "{Paris}")
    result = engine.run("capital of France?", llm, topic_entities=["France"])
    assert result.answer == "Paris"
    assert result.llm_calls == calls == len(llm.requests)
    assert result.method == kind


def test_prompt_baseline_rejects_unknown_kind() -> None:
    with pytest.raises(ValueError, match="kind"):
        PromptBaseline("tot")


def test_ask_parsed_retries_once_with_a_reminder_then_gives_up() -> None:
    usage = UsageMeter()
    llm = ScriptedLLM(["Well.\nHmm.", "Still\nthinking."])
    value = run_steps(ask_parsed(io_request("q"), parse_answer, "Braces please.", usage), llm)
    assert value is None
    assert usage.calls == 2
    assert llm.requests[1].messages[-1].content == "Braces please."
    assert llm.requests[1].messages[-2].content == "Well.\nHmm."


def test_each_sample_gets_its_own_seed_and_topic_answers_are_refused() -> None:
    llm = ScriptedLLM(["{Giant}", "{Giant}", "{Shane}", "{Giant}", "{Shane}"])
    result = run_steps(cot_sc_steps("who directed [Giant]", n=5, seed=3), llm)
    assert [r.seed for r in llm.requests] == [3, 4, 5, 6, 7]
    assert result.answer == "Shane"  # three "Giant" replies name the topic entity
    assert len(result.extra["steps"]) == 5


def test_the_baselines_module_exports_only_its_own_names() -> None:
    import kgcore.methods.baselines as baselines

    assert sorted(baselines.__all__) == ["CoTSCConfig", "EchoBaseline", "PromptBaseline"]
    for kernel_name in ("UNKNOWN", "ask_parsed", "io_request", "majority_answer", "step_record"):
        assert not hasattr(baselines, kernel_name)  # import it from kgcore.methods.kernel
