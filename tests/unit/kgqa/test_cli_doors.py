"""Every bad setting, file, dataset spec and question of issue 37 (items 3, 6 and 8) is one
``kgqa: error:`` line and exit 2, with no traceback, before any model is loaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

import kgqa.cli
import kgqa.common
import langchain_fasttog.models as models
from kgqa.cli import main
from tests.support.paths import REPO


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "kb.txt").write_text("Heat|directed_by|Michael Mann\n")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "blank.txt").write_text("\n  \n")
    (tmp_path / "null.jsonl").write_text('["Heat", "directed_by", null]\n')
    (tmp_path / "object.jsonl").write_text('["Heat", "directed_by", {"x": 1}]\n')
    (tmp_path / "escape.txt").write_text("He\x1bat|directed_by|Michael Mann\n")
    (tmp_path / "binary.jsonl").write_bytes(bytes(range(128, 256)) * 4)
    (tmp_path / "qa.jsonl").write_text(
        json.dumps({"question": "who directed [Heat]", "answers": "Michael Mann"}) + "\n"
    )
    return tmp_path


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a model was loaded before the input was checked")

    monkeypatch.setattr(kgqa.common, "llm_for", refuse)
    monkeypatch.setattr(kgqa.cli, "llm_for", refuse)


SEVENTEEN = " ".join(f"[e{i}]" for i in range(17))
ASK = [
    (["--seed", "-1"], "seed"),
    (["--width", "0"], "width"),
    (["--kg", "{d}/empty.txt"], "holds no triples"),
    (["--kg", "{d}/blank.txt"], "holds no triples"),
    (["--kg", "{d}/null.jsonl"], "null.jsonl:1"),
    (["--kg", "{d}/object.jsonl"], "object.jsonl:1"),
    (["--kg", "{d}/escape.txt"], "U+001B"),
    (["--entity", "He\x1bat"], "U+001B"),
    (["--entity", "x" * 201], "201 characters"),
]


@pytest.mark.parametrize(("extra", "expected"), ASK, ids=[e for _, e in ASK])
def test_kgqa_ask_refuses_with_exit_2(
    extra: list[str], expected: str, files: Path, no_model: None,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    argv = ["ask", "who directed [Heat]", "--kg", str(files / "kb.txt"), "--quiet"]
    code = main(argv + [a.format(d=files) for a in extra])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kgqa: error:") and "Traceback" not in err
    assert expected in err


@pytest.mark.parametrize(
    "question", [SEVENTEEN, "who is [" + "x" * 201 + "]", "who directed [He\x07at]"]
)
def test_kgqa_ask_refuses_a_question_over_the_limits_before_the_graph_loads(
    question: str, no_model: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["ask", question, "--kg", "no-such-file.txt", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "no-such-file" not in err


EVAL = [
    (["--method", "io", "--data", "jsonl:{d}/binary.jsonl"], "not UTF-8"),
    (["--method", "io", "--data", "metaqa:1hop:-1"], "bad limit '-1'"),
    (["--method", "io", "--data", "metaqa:-1"], "where the split goes"),
    (["--method", "fasttog", "--set", "width=2.5"], "width"),
    (["--method", "fasttog", "--set", "seed=x"], "seed"),
    (["--method", "fasttog", "--set", "seed=true"], "seed"),
    (["--method", "fasttog", "--set", "radius=1.5"], "radius"),
    (["--method", "fasttog", "--set", "hub_degree=-1"], "hub_degree"),
    (["--method", "fasttog", "--set", "leaves.kept=1000000"], "kept"),
    (["--method", "fasttog", "--set", "prune_temperature=nan"], "prune_temperature"),
    (["--method", "fasttog", "--set", "reason_temperature=inf"], "reason_temperature"),
    (["--method", "tog", "--set", "width=1.5"], "width"),
    (["--method", "cot-sc", "--set", "n=2.5"], "n must be an integer"),
]


@pytest.mark.parametrize(("extra", "expected"), EVAL, ids=[" ".join(a) for a, _ in EVAL])
def test_kgqa_eval_refuses_with_exit_2_before_the_model_loads(
    extra: list[str], expected: str, files: Path, no_model: None,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    argv = ["eval", "--out", str(files / "out"), "--quiet", "--data-dir", str(files)]
    if "--data" not in extra:
        argv += ["--data", f"jsonl:{files}/qa.jsonl"]
    code = main(argv + [a.format(d=files) for a in extra])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kgqa: error:") and "Traceback" not in err
    assert expected in err and "unknown MetaQA split" not in err
    assert not (files / "out").exists()


@pytest.mark.parametrize("workers", ["0", "-2", "x"])
def test_kgqa_eval_refuses_a_worker_count_below_one(
    workers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["eval", "--workers", workers, "--method", "io", "--data", "x", "--out", "o"])
    assert info.value.code == 2 and "--workers" in capsys.readouterr().err


def test_a_refused_eval_leaves_no_folder_holding_only_the_lock(
    files: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(models, "resolve_chat_model", lambda spec: FakeListChatModel(responses=[]))
    out = files / "runs"
    # tog needs a graph: the dataset has none and --kg is not given (refused in evaluate).
    code = main(["eval", "--method", "tog", "--data", f"jsonl:{files}/qa.jsonl", "--llm",
                 "fake:x", "--out", str(out), "--quiet", "--no-plots"])  # fmt: skip
    assert code == 2 and "needs a knowledge graph" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["ask", "q", "--kg", "kb.txt", "--seed", "-1"], "seed=-1"),
        (["ask", "q", "--kg", "{d}/null.jsonl", "--llm", "none", "--quiet"], "null.jsonl:1"),
        (["eval", "--method", "fasttog", "--set", "width=2.5", "--data", "jsonl:{d}/qa.jsonl",
          "--out", "{d}/out"], "width"),
        (["eval", "--method", "io", "--data", "jsonl:{d}/binary.jsonl", "--out", "{d}/out"],
         "binary.jsonl:1: not UTF-8"),
    ],
    ids=["ask seed", "ask null node", "eval width", "eval binary data"],
)  # fmt: skip
def test_the_installed_command_exits_2_without_a_traceback(
    argv: list[str], expected: str, files: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kgqa", *(a.format(d=files) for a in argv)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "kgqa: error:" in done.stderr and "Traceback" not in done.stderr
    assert expected in done.stderr
