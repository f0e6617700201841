"""``kgqa ask`` prints each step on stderr as it happens, and the answer before any picture."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableLambda

import langchain_fasttog.models
from kgqa.cli import main
from kgqa.progress import describe_step
from tests.support.movie_graph import MOVIE_TRIPLES

KB = "".join(f"{h}|{r}|{t}\n" for h, r, t in MOVIE_TRIPLES)
ASK = ["ask", "which films share the director of [Cleopatra]", "--width", "1"]
ASK += ["--max-community-size", "2", "--first-choice", "llm"]
ASK += ["--chain-choice", "llm", "--sampling", "model"]


def _scripted(monkeypatch: pytest.MonkeyPatch, replies: list[str]) -> list[str]:
    """A scripted chat model for ``--llm``; returns what stderr held at each of its calls."""
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    at_call: list[str] = []
    queue = iter(replies)

    def model(messages: list[BaseMessage]) -> AIMessage:
        at_call.append(stderr.getvalue())
        return AIMessage(content=next(queue))

    monkeypatch.setattr(
        langchain_fasttog.models, "resolve_chat_model", lambda spec: RunnableLambda(model)
    )
    return at_call


def test_each_step_is_printed_before_the_next_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text(KB)
    at_call = _scripted(monkeypatch, ["{2}", "{All About Eve}"])
    code = main([*ASK, "--kg", str(kb)])
    stderr = sys.stderr.getvalue()  # type: ignore[attr-defined]
    assert code == 0, stderr
    assert "Answer: All About Eve" in capsys.readouterr().out
    # Path planning (on by default) reads the graph without a model call: its step is printed
    # before the first call, and nothing else is.
    assert len(at_call) == 2 and at_call[0].count("[step") == 1
    assert at_call[0].count("[step 1] paths: 3 offered") == 1
    assert at_call[1].count("[step 2] prune: 3 offered") == 1  # printed while the model works
    assert "-> picked {All About Eve, Joseph L. Mankiewicz}" in at_call[1]
    assert "[step 3] reason (depth 1): answer All About Eve" in stderr


def test_quiet_prints_no_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text(KB)
    _scripted(monkeypatch, ["{2}", "{All About Eve}"])
    assert main([*ASK, "--kg", str(kb), "--quiet"]) == 0
    assert "[step" not in sys.stderr.getvalue()  # type: ignore[attr-defined]


def test_the_answer_is_printed_before_a_failed_drawing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kgcore.exceptions import MissingDependencyError
    from kgcore.methods.fasttog import FastToGResult

    def no_matplotlib(self: FastToGResult, path: str) -> str:
        raise MissingDependencyError("matplotlib", "visualize")

    monkeypatch.setattr(FastToGResult, "draw", no_matplotlib)
    kb = tmp_path / "kb.txt"
    kb.write_text(KB)
    _scripted(monkeypatch, ["{2}", "{All About Eve}"])
    code = main([*ASK, "--kg", str(kb), "--draw", str(tmp_path / "chain.png")])
    assert code == 2
    assert "Answer: All About Eve" in capsys.readouterr().out
    assert "'matplotlib' is required" in sys.stderr.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("record", "line"),
    [
        (
            {"purpose": "prune", "offered": [["A"], ["B", "C"]], "picked": [1], "reply": "{2}"},
            "prune: 2 offered {A} | {B, C} -> picked {B, C}",
        ),
        (
            {"purpose": "prune", "offered": [["A"], ["B"]], "picked": None, "retry": True},
            "prune (format retry): 2 offered {A} | {B} -> no usable choice",
        ),
        (
            {"purpose": "prune", "offered": [["A"], ["B"]], "picked": [0], "ranked": "similarity"},
            "prune: 2 offered {A} | {B} -> picked by similarity {A}",
        ),
        ({"purpose": "prune", "offered": [["A"]], "forced": True}, "prune: {A} taken"),
        ({"purpose": "reason", "depth": 3, "answer": None}, "reason (depth 3): no answer yet"),
        ({"purpose": "cot", "reply": "So\n{Paris}"}, "cot: So {Paris}"),
    ],
)
def test_step_lines(record: dict[str, object], line: str) -> None:
    assert describe_step(record).startswith(line)


def test_a_long_step_line_is_cut() -> None:
    record = {"purpose": "prune", "offered": [[f"node {i}"] for i in range(200)], "picked": [0]}
    text = describe_step(record)
    assert len(text) == 300 and text.endswith("...")
