"""Traces survive odd characters, partial lines and corrupt records; one process per folder."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError, RunLockedError
from kgcore.llm import ScriptedLLM
from kgeval import evaluate, read_traces
from kgeval.datasets import Dataset, EvalExample
from kgeval.lock import output_folder_lock
from kgeval.traces import append_trace
from tests.support.paths import REPO
from tests.support.records import trace_record

ODD = ["a\u0085b", "a\u2028b\u2029c", "\ud800 lone", "\udfff", "tab\tnew\nline\r", "\x00", "é東"]


def dataset() -> Dataset:
    return Dataset(
        "toy", [EvalExample(f"q{i}", f"question {i}?", (f"answer {i}",)) for i in range(3)]
    )


@pytest.mark.parametrize("text", ODD)
def test_any_string_round_trips(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run.jsonl"
    append_trace(path, trace_record("q1", prediction=text))
    append_trace(path, trace_record("q2", prediction="ok"))
    assert read_traces(path) == [
        trace_record("q1", prediction=text),
        trace_record("q2", prediction="ok"),
    ]


def test_a_record_after_a_partial_line_starts_a_new_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    append_trace(path, trace_record("q1", hit=True))
    with path.open("a") as handle:
        handle.write('{"id": "q2", "hi')  # a killed run
    append_trace(path, trace_record("q3", hit=False))
    append_trace(path, trace_record("q4", hit=True))
    with pytest.warns(UserWarning, match=r"run.jsonl:2: unreadable trace record"):
        ids = [r["id"] for r in read_traces(path)]
    assert ids == ["q1", "q3", "q4"]


def test_an_unreadable_record_is_run_again(tmp_path: Path) -> None:
    trace = tmp_path / "io__toy.jsonl"
    first = evaluate(
        "io", dataset(), ScriptedLLM(lambda r: "{x}"), out_dir=tmp_path, progress=False, plots=False
    )
    assert len(first.records) == 3
    lines = trace.read_bytes().split(b"\n")
    lines[1] = b"\xff\xfe not json"
    trace.write_bytes(b"\n".join(lines))
    llm = ScriptedLLM(lambda r: "{x}")
    with pytest.warns(UserWarning, match="unreadable trace record"):
        again = evaluate("io", dataset(), llm, out_dir=tmp_path, progress=False, plots=False)
    assert len(llm.requests) == 1 and again.skipped == 2
    assert sorted(r["id"] for r in again.records) == ["q0", "q1", "q2"]


def test_answers_with_line_separators_do_not_break_the_folder(tmp_path: Path) -> None:
    replies = iter(["{a\u2028b}", "{c\u0085d}", "{e}"])
    evaluate(
        "io",
        dataset(),
        ScriptedLLM(lambda r: next(replies)),
        out_dir=tmp_path,
        progress=False,
        plots=False,
    )
    llm = ScriptedLLM([])
    again = evaluate("io", dataset(), llm, out_dir=tmp_path, progress=False, plots=False)
    assert llm.requests == [] and again.skipped == 3


def test_a_second_process_on_the_same_folder_is_refused(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, time
                from kgeval.lock import output_folder_lock
                with output_folder_lock({str(tmp_path)!r}):
                    print("locked", flush=True)
                    time.sleep(30)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(RunLockedError, match="another evaluation is writing"):
            evaluate("io", dataset(), ScriptedLLM([]), out_dir=tmp_path, progress=False)
    finally:
        holder.kill()
        holder.wait(timeout=10)
    # the operating system released the dead process's lock
    started = time.perf_counter()
    with output_folder_lock(tmp_path):
        pass
    assert time.perf_counter() - started < 1.0
    assert not list(tmp_path.glob("*.jsonl"))


def test_out_naming_a_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "runs.txt"
    target.write_text("keep me")
    with pytest.raises(ConfigurationError, match="is a file"):
        evaluate("io", dataset(), ScriptedLLM([]), out_dir=target, progress=False)
    from kgqa.cli import main

    code = main(["eval", "--method", "io", "--data", "metaqa:1hop:1", "--out", str(target)])
    assert code == 2
    assert "is a file; pass a folder" in capsys.readouterr().err
    assert target.read_text() == "keep me"


def test_traces_are_plain_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    append_trace(path, trace_record("q1", prediction="Amélie"))
    assert json.loads(path.read_text(encoding="utf-8")) == trace_record("q1", prediction="Amélie")
