"""``langchain_fasttog.evaluate``: the core harness with a LangChain chat model."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from kgcore.llm import ScriptedLLM
from kgeval.datasets import Dataset, EvalExample
from langchain_fasttog import evaluate


def toy_dataset() -> Dataset:
    return Dataset(
        "toy",
        [
            EvalExample("q1", "who directed [Cleopatra]", ("Joseph L. Mankiewicz",)),
            EvalExample("q2", "which film did [X] star in", ("Cobra",)),
            EvalExample("q3", "who wrote [Y]", ("Somebody",)),
        ],
    )


def test_a_langchain_chat_model_is_adapted(tmp_path: Path) -> None:
    model = FakeListChatModel(responses=["{Joseph L. Mankiewicz}", "{Cobra}", "{Nobody}"])
    run = evaluate("io", toy_dataset(), model, out_dir=tmp_path, progress=False, plots=False)
    assert [r["error"] for r in run.records] == [None, None, None]
    assert run.accuracy == pytest.approx(2 / 3)


def test_a_kgcore_model_is_passed_on_as_it_is(tmp_path: Path) -> None:
    llm = ScriptedLLM(["{Joseph L. Mankiewicz}", "{Cobra}", "{Nobody}"])
    run = evaluate("io", toy_dataset(), llm, out_dir=tmp_path, progress=False, plots=False)
    assert run.accuracy == pytest.approx(2 / 3) and len(llm.requests) == 3
