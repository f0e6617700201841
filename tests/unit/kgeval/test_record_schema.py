"""Trace records are read through one schema (issue 37, item 4): a wrongly typed record is
skipped with a warning and its question run again, in a resume, a report and ``kgqa eval
--report-only``; only the dataset's ids count. Also from item 8: a refused run leaves no folder
holding only the lock file, and a kill during the fail-fast check keeps the finished answers."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.llm import ScriptedLLM
from kgeval import evaluate, read_traces, write_report
from kgeval.datasets import Dataset, EvalExample
from kgeval.lock import LOCK_NAME
from kgeval.records import RECORD_FIELDS, record_problem
from kgeval.report import load_runs
from kgeval.traces import dataset_ids_path
from kgqa.cli import main
from tests.support.paths import REPO

#: One bad value per kind of field (the first is the issue's).
BAD_FIELDS: list[tuple[str, Any]] = [
    ("llm_calls", "many"),
    ("llm_calls", -1),
    ("llm_calls", 2.5),
    ("llm_calls", True),
    ("prompt_tokens", "10"),
    ("depth", [1]),
    ("hit", "yes"),
    ("hit", 1),
    ("fell_back", None),
    ("recall", 2.0),
    ("recall", "high"),
    ("total_seconds", -3.0),
    ("graph_seconds", "NaN"),
    ("answers", "Paris"),
    ("answers", [1, 2]),
    ("topic_entities", {"a": 1}),
    ("options", []),
    ("extra", "x"),
    ("prediction", 42),
    ("question", None),
    ("error", 3),
    ("max_community_size", "4"),
    ("id", 7),
    ("id", ""),
    ("id", None),
]


def dataset(n: int = 3) -> Dataset:
    return Dataset("toy", [EvalExample(f"q{i}", f"question {i}?", ("x",)) for i in range(n)])


def first_run(folder: Path, n: int = 3) -> Path:
    evaluate("io", dataset(n), ScriptedLLM(lambda r: "{x}"), out_dir=folder, progress=False,
             plots=False)  # fmt: skip
    return folder / "io__toy.jsonl"


def spoil(trace: Path, line: int, field: str, value: Any) -> None:
    """Give the record on ``line`` (0-based) a bad ``field`` (parseable JSON all the same)."""
    lines = trace.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[line])
    record[field] = value
    lines[line] = json.dumps(record)
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(("field", "value"), BAD_FIELDS, ids=lambda v: repr(v))
def test_a_wrongly_typed_record_is_skipped_and_its_question_run_again(
    tmp_path: Path, field: str, value: Any
) -> None:
    trace = first_run(tmp_path)
    spoil(trace, 1, field, value)
    assert record_problem(json.loads(trace.read_text().splitlines()[1])) is not None
    with pytest.warns(UserWarning, match=r"io__toy.jsonl:2: bad trace record skipped"):
        assert [r["id"] for r in read_traces(trace)] == ["q0", "q2"]
    llm = ScriptedLLM(lambda r: "{x}")
    with pytest.warns(UserWarning, match="bad trace record skipped"):
        run = evaluate("io", dataset(), llm, out_dir=tmp_path, progress=False, plots=False)
    assert len(llm.requests) == 1 and run.skipped == 2  # only q1 ran again
    assert run.summary["n"] == 3 and run.summary["llm_calls"] == 1.0
    with warnings.catch_warnings():
        # Once q1 has a good record its bad one is no news; a record without a usable id
        # names no question, so its line is reported on every read.
        warnings.simplefilter("ignore" if field == "id" else "error")
        assert [r["id"] for r in read_traces(trace)] == ["q0", "q2", "q1"]
        assert "| io | toy | 3 |" in write_report(tmp_path, plots=False).read_text()


@pytest.mark.parametrize(("field", "value"), BAD_FIELDS[:8], ids=lambda v: repr(v))
def test_report_only_reads_past_a_bad_record(
    tmp_path: Path, field: str, value: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    spoil(first_run(tmp_path), 0, field, value)
    with pytest.warns(UserWarning, match="bad trace record skipped"):
        code = main(["eval", "--report-only", "--no-plots", "--out", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 0 and "Traceback" not in captured.err
    assert "| io | toy | 2 |" in captured.out  # the bad record is not counted


def test_the_cli_report_only_exits_0_without_a_traceback(tmp_path: Path) -> None:
    spoil(first_run(tmp_path), 0, "llm_calls", "many")
    done = subprocess.run(
        [sys.executable, "-m", "kgqa", "eval", "--report-only", "--no-plots", "--out",
         str(tmp_path)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "bad trace record skipped" in done.stderr


def test_every_field_the_harness_writes_is_in_the_schema(tmp_path: Path) -> None:
    record = read_traces(first_run(tmp_path))[0]
    assert set(record) - {"id"} <= set(RECORD_FIELDS)
    assert record_problem(record) is None


def test_records_of_ids_not_in_the_dataset_are_not_counted(tmp_path: Path) -> None:
    trace = first_run(tmp_path, n=4)  # a longer run first: q0..q3
    with trace.open("a", encoding="utf-8") as handle:  # and a record of no dataset at all
        handle.write(json.dumps({**read_traces(trace)[0], "id": "stranger"}) + "\n")
    llm = ScriptedLLM(lambda r: "{x}")
    run = evaluate("io", dataset(3), llm, out_dir=tmp_path, progress=False, plots=False)
    assert llm.requests == [] and run.summary["n"] == 3 and len(run.records) == 3
    assert json.loads(dataset_ids_path(trace).read_text())["ids"] == ["q0", "q1", "q2"]
    assert [len(records) for records in load_runs(tmp_path).values()] == [3]
    assert "| io | toy | 3 |" in (tmp_path / "summary.md").read_text()


def test_a_trace_without_its_dataset_ids_counts_every_record(tmp_path: Path) -> None:
    trace = first_run(tmp_path)
    dataset_ids_path(trace).unlink()  # as traces written before the lists existed
    assert [len(records) for records in load_runs(tmp_path).values()] == [3]
    dataset_ids_path(trace).write_text("{not json")
    with pytest.warns(UserWarning, match="unreadable list of dataset ids"):
        assert [len(records) for records in load_runs(tmp_path).values()] == [3]


# -- item 8: the lock file alone, and the fail-fast wait -------------------------------------


def failing(request: Any) -> str:
    raise RuntimeError("the model is down")


@pytest.mark.parametrize(
    "refuse",
    [
        lambda out: evaluate("tog", dataset(), ScriptedLLM([]), out_dir=out, progress=False),
        lambda out: evaluate("io", dataset(), ScriptedLLM(failing), out_dir=out, progress=False),
        lambda out: evaluate("io", "all:2", ScriptedLLM([]), out_dir=out, progress=False),
    ],
    ids=["needs a graph", "every first question fails", "several datasets"],
)
def test_a_refused_run_leaves_no_folder_behind(tmp_path: Path, refuse: Any) -> None:
    out = tmp_path / "runs" / "new"
    with pytest.raises(ConfigurationError):
        refuse(out)
    assert not out.exists()
    existing = tmp_path / "existing"
    existing.mkdir()
    with pytest.raises(ConfigurationError):
        refuse(existing)
    assert existing.is_dir()  # a folder the user made stays
    assert [p.name for p in existing.iterdir()] in ([], [LOCK_NAME])


KILLED_RUN = """
import os, signal, sys, time
from kgeval import evaluate
from kgeval.datasets import Dataset, EvalExample
from kgcore.llm import ScriptedLLM

data = Dataset("toy", [EvalExample(f"q{i}", f"question {i}?", ("x",)) for i in range(5)])
calls = []

def reply(request):
    calls.append(request)
    if len(calls) == 3:  # the third question: the process is killed
        time.sleep(0.5)  # (the main thread writes the second answer meanwhile)
        os.kill(os.getpid(), signal.SIGKILL)
    return "{x}"

evaluate("io", data, ScriptedLLM(reply), out_dir=sys.argv[1], progress=False, plots=False)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_kill_in_the_first_three_questions_keeps_the_finished_answers(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(KILLED_RUN), str(tmp_path)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert done.returncode == -9, done.stderr
    assert [r["id"] for r in read_traces(tmp_path / "io__toy.jsonl")] == ["q0", "q1"]
    llm = ScriptedLLM(lambda r: "{x}")
    run = evaluate("io", dataset(5), llm, out_dir=tmp_path, progress=False, plots=False)
    assert run.skipped == 2 and len(llm.requests) == 3


def test_failed_first_records_still_wait_for_the_check(tmp_path: Path) -> None:
    """Two failures then an answer: all three are written once the answer shows the run
    works; three identical failures write nothing (the fail-fast contract)."""
    replies = iter(["boom", "boom", "{x}", "{x}"])

    def reply(request: Any) -> str:
        text = next(replies)
        if text == "boom":
            raise RuntimeError("boom")
        return text

    run = evaluate("io", dataset(4), ScriptedLLM(reply), out_dir=tmp_path, progress=False,
                   plots=False)  # fmt: skip
    assert run.summary["n"] == 4 and run.summary["errors"] == 2
    assert [r["id"] for r in read_traces(tmp_path / "io__toy.jsonl")] == ["q0", "q1", "q2", "q3"]
