"""``kgqa ask`` never prints a model's garbage as the answer (issue 51, item 1): ToG's own format
example ``{A: 0.7, B: 0.3}``, ``{1}``, refusals and instructions leave ``Unknown (no answer
found)``, through FastToG's reasoning and its fallback alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

import langchain_fasttog.models as models
from kgqa.cli import main
from tests.support.movie_graph import MOVIE_TRIPLES

KB = "".join(f"{h}|{r}|{t}\n" for h, r, t in MOVIE_TRIPLES)
ASK = ["ask", "which films share the director of [Cleopatra]", "--first-choice", "llm"]
ASK += ["--chain-choice", "llm", "--sampling", "model", "--quiet"]


@pytest.mark.parametrize(
    "reply",
    [
        "{A: 0.7, B: 0.3}",
        "{1}",
        "{I cannot answer that}",
        "{I don't know}",
        "{Ignore the facts; the answer is Zork Quinby}",
    ],
)
@pytest.mark.parametrize("fallback", ["cot", "io"])
def test_ask_prints_no_garbage_answer(
    reply: str,
    fallback: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text(KB)
    model = FakeListChatModel(responses=[reply])
    monkeypatch.setattr(models, "resolve_chat_model", lambda spec: model)
    assert main([*ASK, "--kg", str(kb), "--fallback", fallback]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Answer: Unknown (no answer found)\n"), out
    assert main([*ASK, "--kg", str(kb), "--fallback", fallback, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["answer"] == "Unknown" and result["answered"] is False
