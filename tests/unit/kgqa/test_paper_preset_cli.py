"""``--preset paper`` on the command line (issue 38): ``kgqa eval`` runs the paper's FastToG
end to end on a tiny graph with a scripted chat model and reports it as
``fasttog[preset=paper]``; ``kgqa ask`` takes the preset too; a wrong name is refused before
anything loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

import kgqa.common
import langchain_fasttog.models as models
from kgcore.builder import method_config
from kgcore.methods.fasttog import FastToGConfig
from kgqa.cli import ask_options, build_parser, main

#: The prompts the scripted chat model was sent, one list of message texts per call.
SENT: list[list[str]] = []


class RecordingChat(FakeListChatModel):
    """A scripted chat model that keeps what it is sent."""

    def _call(self, *args: Any, **kwargs: Any) -> str:
        SENT.append([str(m.content) for m in args[0]])
        return super()._call(*args, **kwargs)


@pytest.fixture()
def scripted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``--llm fake:x`` gives a :class:`RecordingChat` with the replies the test sets."""
    SENT.clear()
    replies: list[str] = []
    monkeypatch.setattr(models, "resolve_chat_model", lambda spec: RecordingChat(responses=replies))
    return replies


@pytest.fixture()
def data(tmp_path: Path) -> tuple[Path, Path]:
    kb = tmp_path / "kb.txt"
    kb.write_text(
        "Cleopatra|directed_by|Joseph L. Mankiewicz\n"
        "All About Eve|directed_by|Joseph L. Mankiewicz\n"
        "Cobra|starred_actors|Brigitte Nielsen\n"
    )
    qa = tmp_path / "qa.jsonl"
    rows = [
        {"id": "a", "question": "who directed [Cleopatra]", "answers": ["Joseph L. Mankiewicz"]},
        {"id": "b", "question": "which film stars [Brigitte Nielsen]", "answers": ["Cobra"]},
    ]
    qa.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return kb, qa


def _eval(kb: Path, qa: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "eval",
            "--method",
            "fasttog",
            "--data",
            f"jsonl:{qa}",
            "--kg",
            str(kb),
            "--llm",
            "fake:x",
            "--out",
            str(out),
            "--quiet",
            "--no-plots",
            *extra,
        ]
    )


def test_kgqa_eval_runs_the_paper_preset_end_to_end(
    tmp_path: Path, data: tuple[Path, Path], scripted: list[str]
) -> None:
    kb, qa = data
    # Each question's neighbourhood is one community: the first choice is forced (no call),
    # and one reasoning call answers, in the paper's reply form.
    scripted += [
        "First, ... To sum up, the answer is {Joseph L. Mankiewicz}.",
        "To sum up, the answer is {Cobra}.",
    ]
    out = tmp_path / "out"
    assert _eval(kb, qa, out, "--preset", "paper") == 0
    report = (out / "summary.md").read_text()
    assert "| fasttog[preset=paper] | qa | 2 | 1.00 |" in report
    records = [json.loads(line) for line in (out / "fasttog_preset=paper___qa.jsonl").open()]
    assert [r["run"] for r in records] == ["fasttog[preset=paper]"] * 2
    assert [r["llm_calls"] for r in records] == [1, 1]
    # The model was sent the paper's reasoning prompt: a plain system line, then the
    # instruction, the numbered context written one sentence per triple, "Q:" and "A:".
    assert len(SENT) == 2 and all(len(call) == 2 for call in SENT)
    system, prompt = SENT[0]
    assert system == FastToGConfig.paper().reason_system
    assert "context:\n1. " in prompt and "Q: who directed [Cleopatra]\nA:" in prompt
    assert "Cleopatra directed by Joseph L. Mankiewicz." in prompt


def test_kgqa_eval_preset_matches_set_preset(
    tmp_path: Path, data: tuple[Path, Path], scripted: list[str]
) -> None:
    kb, qa = data
    scripted += ["{Joseph L. Mankiewicz}", "{Cobra}"]
    assert _eval(kb, qa, tmp_path / "a", "--set", "preset=paper") == 0
    assert (tmp_path / "a" / "fasttog_preset=paper___qa.jsonl").exists()


def test_a_wrong_preset_is_refused_before_the_model_loads(
    tmp_path: Path,
    data: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a model was loaded before the preset was checked")

    monkeypatch.setattr(kgqa.common, "llm_for", refuse)
    kb, qa = data
    assert _eval(kb, qa, tmp_path / "out", "--preset", "papr") == 2
    err = capsys.readouterr().err
    assert "unknown FastToG preset 'papr'; the presets are metaqa, paper" in err
    assert _eval(kb, qa, tmp_path / "out", "--preset", "paper", "--set", "preset=metaqa") == 2
    assert "disagree" in capsys.readouterr().err
    code = main(["ask", "who directed [Cleopatra]", "--kg", str(kb), "--preset", "nope"])
    assert code == 2 and "the presets are metaqa, paper" in capsys.readouterr().err


def test_kgqa_eval_preset_needs_a_fasttog_method(
    tmp_path: Path, data: tuple[Path, Path], scripted: list[str], capsys: pytest.CaptureFixture
) -> None:
    kb, qa = data
    code = main(
        ["eval", "--method", "io", "--data", f"jsonl:{qa}", "--preset", "paper"]
        + ["--out", str(tmp_path), "--quiet", "--llm", "fake:x"]
    )
    assert code == 2 and "none of the methods (io)" in capsys.readouterr().err


def test_kgqa_ask_takes_the_preset_and_options_override_it() -> None:
    args = build_parser().parse_args(["ask", "q", "--preset", "paper", "--width", "2"])
    config = method_config("fasttog", ask_options(args), preset=args.preset)
    assert config == FastToGConfig.paper(width=2)
    assert method_config("fasttog", ask_options(build_parser().parse_args(["ask", "q"]))) == (
        FastToGConfig()
    )


def test_kgqa_ask_answers_with_the_paper_preset(
    data: tuple[Path, Path], scripted: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    kb, _ = data
    # Cleopatra's neighbourhood is one community: a forced first choice, one reasoning call.
    scripted += ["To sum up, the answer is {Joseph L. Mankiewicz}."]
    code = main(
        ["ask", "who directed [Cleopatra]", "--kg", str(kb), "--llm", "fake:x"]
        + ["--preset", "paper", "--quiet"]
    )
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("Answer: Joseph L. Mankiewicz")
    assert "first choice llm" in out  # no embedder loaded: the paper's LLM choice
