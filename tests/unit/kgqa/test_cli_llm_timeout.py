"""``--llm-timeout`` (issue 51, item 2): with a model that never returns, ``kgqa ask`` and
``kgqa eval`` end, each call cut off at the deadline, and the model keeps at most
``RetryPolicy.max_abandoned`` threads; a bad value is refused before anything loads."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

import kgqa.cli
import kgqa.common
import langchain_fasttog.models as models
from kgcore.llm.protocol import worker_stats
from kgqa.cli import main
from tests.support.movie_graph import MOVIE_TRIPLES

KB = "".join(f"{h}|{r}|{t}\n" for h, r, t in MOVIE_TRIPLES)
ASK = ["ask", "which films share the director of [Cleopatra]", "--first-choice", "llm"]
ASK += ["--chain-choice", "llm", "--sampling", "model", "--quiet"]
#: Released when the module's tests end.
NEVER = threading.Event()


@pytest.fixture(autouse=True, scope="module")
def _release() -> Iterator[None]:
    yield
    NEVER.set()


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    path = tmp_path / "kb.txt"
    path.write_text(KB)
    return path


def never_returning(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    class Never(FakeListChatModel):
        def _call(self, *args: object, **kwargs: object) -> str:
            calls.append(1)
            NEVER.wait()
            return "{1}"

    model = Never(responses=["{1}"])
    monkeypatch.setattr(models, "resolve_chat_model", lambda spec: model)
    return calls


def test_ask_ends_at_the_deadline_with_a_model_that_never_returns(
    kb: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = never_returning(monkeypatch)
    started = time.perf_counter()
    code = main([*ASK, "--kg", str(kb), "--llm-timeout", "0.2"])
    assert time.perf_counter() - started < 30.0  # two 0.2 s deadlines and the backoff
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "failed after 3 attempts" in err and ("timeout of 0.2 s" in err or "deadline" in err)
    assert len(calls) <= 2  # the third attempt is refused: the model runs two calls already
    stats = worker_stats()
    assert stats.abandoned <= 2 and stats.threads - stats.idle <= 2  # no thread a call


def test_eval_ends_at_the_deadline_with_a_model_that_never_returns(
    kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    never_returning(monkeypatch)
    data = tmp_path / "questions.jsonl"
    data.write_text(
        "".join(
            f'{{"id": "q{i}", "question": "who directed [Cleopatra]", "answers": ["x"]}}\n'
            for i in range(4)
        )
    )
    started = time.perf_counter()
    code = main(
        ["eval", "--method", "io", "--data", f"jsonl:{data}", "--out", str(tmp_path / "out"),
         "--llm", "openai:none", "--llm-timeout", "0.2", "--quiet", "--no-plots"]
    )  # fmt: skip
    assert time.perf_counter() - started < 60.0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, captured.err
    assert code in (0, 2)


@pytest.mark.parametrize("value", ["0", "-1", "601", "nan", "inf", "abc"])
def test_a_bad_llm_timeout_is_refused_before_the_model_loads(
    value: str, kb: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(kgqa.cli, "llm_for", lambda *a: pytest.fail("model loaded"))
    monkeypatch.setattr(kgqa.common, "llm_for", lambda *a: pytest.fail("model loaded"))
    with pytest.raises(SystemExit) as info:
        main([*ASK, "--kg", str(kb), "--llm-timeout", value])
    assert info.value.code == 2
    assert "--llm-timeout must be a number of seconds in (0, 600]" in capsys.readouterr().err
