"""``kgqa ask --draw IMAGE``: the chain picture from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

import langchain_fasttog.models
from kgqa.cli import main


def test_ask_draws_the_chains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text(
        "Giant|directed_by|George Stevens\nShane|directed_by|George Stevens\n"
        "Giant|starred_actors|Elizabeth Taylor\n"
    )
    fake = FakeListChatModel(responses=["{1}", "{Elizabeth Taylor}"])
    monkeypatch.setattr(langchain_fasttog.models, "resolve_chat_model", lambda spec: fake)
    picture = tmp_path / "out" / "chain.png"
    args = [
        "ask",
        "who starred in [Giant]",
        "--kg",
        str(kb),
        "--width",
        "1",
        "--draw",
        str(picture),
    ]
    code = main(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Answer: Elizabeth Taylor" in captured.out
    assert f"(picture: {picture})" in captured.err
    assert picture.read_bytes().startswith(b"\x89PNG")


def test_a_wrong_picture_name_fails_before_the_graph_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["ask", "q [x]", "--kg", str(tmp_path / "missing.txt"), "--draw", "chain.gif"])
    assert code == 2
    err = capsys.readouterr().err
    assert "cannot draw to 'chain.gif'" in err and "missing.txt" not in err
