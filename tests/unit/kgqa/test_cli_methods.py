"""``kgqa ask --method NAME --set KEY=VALUE`` (issue 49): any method the builder knows, with
any of its options, built as ``kgqa eval`` builds it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

import langchain_fasttog.models as models
from kgqa.cli import main
from tests.support.movie_graph import MOVIE_TRIPLES

SENT: list[str] = []


class RecordingChat(FakeListChatModel):
    """A scripted chat model that keeps the last message of every call."""

    def _call(self, *args: Any, **kwargs: Any) -> str:
        SENT.append(str(args[0][-1].content))
        return super()._call(*args, **kwargs)


@pytest.fixture()
def replies(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    SENT.clear()
    scripted: list[str] = []
    monkeypatch.setattr(
        models, "resolve_chat_model", lambda spec: RecordingChat(responses=scripted)
    )
    return scripted


@pytest.fixture()
def kb(tmp_path: Path) -> Path:
    path = tmp_path / "kb.txt"
    path.write_text("".join(f"{h}|{r}|{t}\n" for h, r, t in MOVIE_TRIPLES))
    return path


def ask(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    code = main(["ask", *argv, "--llm", "fake:x", "--quiet", "--json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else {}), captured.err


def test_ask_runs_gretriever_with_its_options(
    kb: Path, replies: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    replies.append("{Joseph L. Mankiewicz}")
    code, result, _ = ask(
        capsys, "who directed [Cleopatra]", "--kg", str(kb), "--method", "gretriever",
        "--set", "k_nodes=2", "--set", "text_format=triples",
    )  # fmt: skip
    assert code == 0
    assert result["method"] == "gretriever" and result["answer"] == "Joseph L. Mankiewicz"
    assert result["llm_calls"] == 1 and "Cleopatra" in SENT[0]


def test_ask_runs_tog_with_flags_and_sets(
    kb: Path, replies: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    replies.append("Yes {Joseph L. Mankiewicz}")
    code, result, _ = ask(
        capsys, "who directed [Cleopatra]", "--kg", str(kb), "--method", "tog", "--width", "2",
        "--set", "max_depth=1",
    )  # fmt: skip
    assert code == 0 and result["method"] == "tog"


def test_ask_runs_a_graphless_method_without_a_graph(
    replies: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KGQA_KG", raising=False)
    replies.append("{Paris}")
    code, result, _ = ask(capsys, "capital of France?", "--method", "io")
    assert code == 0 and result["answer"] == "Paris"


def test_ask_sets_fasttog_dotted_options(
    kb: Path, replies: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    replies.extend(["{1}", "{All About Eve}"])
    code, result, _ = ask(
        capsys, "which films share the director of [Cleopatra]", "--kg", str(kb),
        "--set", "paths.max_hops=0", "--first-choice", "llm", "--chain-choice", "llm",
    )  # fmt: skip
    assert code == 0 and "path" not in result["extra"]  # path planning off


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--method", "tog", "--set", "max_community_size=2"], "bad option for method 'tog'"),
        (["--method", "io", "--set", "widht=2"], "bad option for method 'io': widht"),
        (["--method", "tog", "--preset", "paper"], "method 'tog' takes no preset"),
        (["--width", "2", "--set", "width=3"], "width is given twice"),
        (["--set", "width"], "--set expects KEY=VALUE"),
    ],
)
def test_a_bad_option_is_one_error_line_before_anything_loads(
    argv: list[str], message: str, kb: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setattr(models, "resolve_chat_model", lambda spec: pytest.fail("model loaded"))
    code = main(["ask", "who directed [Cleopatra]", "--kg", str(kb), "--quiet", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1
