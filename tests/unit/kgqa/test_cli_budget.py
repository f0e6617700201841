"""The cost cap on the command line (issue 39): ``kgqa ask --max-llm-calls N`` and
``kgqa eval --set max_llm_calls=N`` stop every question after N model calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

import kgqa.cli
import kgqa.common
import langchain_fasttog.models as models
from kgqa.cli import main
from tests.support.movie_graph import MOVIE_TRIPLES

KB = "".join(f"{h}|{r}|{t}\n" for h, r, t in MOVIE_TRIPLES)
ASK = ["ask", "which films share the director of [Cleopatra]", "--first-choice", "llm"]
ASK += ["--chain-choice", "llm", "--sampling", "model", "--quiet"]


def fake_model(monkeypatch: pytest.MonkeyPatch, reply: str) -> list[int]:
    """A chat model answering ``reply`` to every call; returns the list its calls are counted in."""
    calls: list[int] = []

    class Counting(FakeListChatModel):
        def _call(self, *args: object, **kwargs: object) -> str:
            calls.append(1)
            return reply

    monkeypatch.setattr(models, "resolve_chat_model", lambda spec: Counting(responses=[reply]))
    return calls


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    path = tmp_path / "kb.txt"
    path.write_text(KB)
    return path


@pytest.mark.parametrize("cap", [1, 2])
def test_ask_stops_after_max_llm_calls(
    cap: int, kb: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = fake_model(monkeypatch, "{1}")  # always a usable choice: FastToG would go on
    code = main([*ASK, "--kg", str(kb), "--max-llm-calls", str(cap), "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert len(calls) == result["llm_calls"] == cap
    assert result["extra"]["budget_exhausted"] == "max_llm_calls"


def test_ask_prints_which_limit_stopped_the_run(
    kb: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = fake_model(monkeypatch, "{1}")
    assert main([*ASK, "--kg", str(kb), "--max-prompt-tokens", "1"]) == 0
    assert calls == []
    out = capsys.readouterr().out
    assert "Answer: Unknown" in out and "stopped by the cost cap: max_prompt_tokens" in out


@pytest.mark.parametrize("option", ["--max-llm-calls", "--max-prompt-tokens"])
@pytest.mark.parametrize("value", ["0", "-3"])
def test_ask_refuses_a_bad_cap_before_the_model_loads(
    option: str, value: str, kb: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setattr(kgqa.cli, "llm_for", lambda *a: pytest.fail("model loaded"))
    monkeypatch.setattr(kgqa.common, "llm_for", lambda *a: pytest.fail("model loaded"))
    code = main([*ASK, "--kg", str(kb), option, value])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kgqa: error: Budget setting")


@pytest.mark.parametrize("method", ["tog", "cot-sc"])
def test_eval_set_max_llm_calls_caps_every_question(
    method: str, kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"id": "a", "question": "who directed [Cleopatra]", "answers": ["x"]}))
    calls = fake_model(monkeypatch, "{A: 1.0}")
    argv = ["eval", "--method", method, "--data", f"jsonl:{qa}", "--kg", str(kb), "--llm", "f:x"]
    argv += ["--set", "max_llm_calls=2", "--out", str(tmp_path / "out"), "--quiet", "--no-plots"]
    assert main(argv) == 0
    (trace,) = (tmp_path / "out").glob(f"{method}_max_llm_calls=2___qa.jsonl")
    record = json.loads(trace.read_text().splitlines()[0])
    assert len(calls) == record["llm_calls"] == 2
    assert record["extra"]["budget_exhausted"] == "max_llm_calls"


def test_eval_refuses_a_bad_cap_before_the_model_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(kgqa.common, "llm_for", lambda *a: pytest.fail("model loaded"))
    argv = ["eval", "--method", "io", "--data", "metaqa:1hop:1", "--set", "max_llm_calls=2.5"]
    assert main([*argv, "--out", str(tmp_path)]) == 2
    assert "Budget setting max_llm_calls must be an integer" in capsys.readouterr().err
