"""No evaluation data is lost quietly (issue 51, item 4): repeated or null ids are refused
before any question runs, a model's NaN time or bad token counts never write a record the
reader rejects, a record without its run is no table row, a full disk leaves no half-written
record (and ``kgqa eval`` exits 2 with one line), and a trace that is not a regular file is
not read."""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import warnings
from pathlib import Path
from typing import Any

import pytest

from kgcore.exceptions import ConfigurationError, OutputWriteError
from kgcore.llm import LLMReply, LLMRequest, ScriptedLLM
from kgeval import evaluate, load_jsonl, read_traces, write_report
from kgeval import traces as traces_module
from kgeval.datasets import Dataset, EvalExample
from kgeval.records import NULLED_FIELD, record_problem, writable_record
from kgeval.traces import append_trace
from kgqa.cli import main
from tests.support.records import trace_record


def toy(n: int = 3) -> Dataset:
    return Dataset("toy", [EvalExample(f"q{i}", f"question {i}?", ("x",)) for i in range(n)])


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# -- repeated and null ids ----------------------------------------------------------------------

BAD_ID = "'id' must be a non-empty string or a whole number"


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        (["1", "1", "2"], "repeated question ids: '1' (lines 1, 2)"),
        ([1, "1", 2], "repeated question ids: '1' (lines 1, 2)"),
        (["a", None, "b"], f"qa.jsonl:2: {BAD_ID}, got null"),
        (["a", "", "b"], f"qa.jsonl:2: {BAD_ID}, got ''"),
        (["a", True, "b"], f"qa.jsonl:2: {BAD_ID}, got True"),
    ],
)
def test_a_jsonl_dataset_with_repeated_or_null_ids_is_refused(
    tmp_path: Path, ids: list[Any], message: str
) -> None:
    qa = tmp_path / "qa.jsonl"
    rows = [{"id": i, "question": f"who is [e{n}]?", "answers": ["x"]} for n, i in enumerate(ids)]
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ConfigurationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_jsonl(qa)


def test_kgqa_eval_refuses_repeated_ids_before_any_question_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: five rows, two pairs of repeated ids (nulls among them), used to run
    five questions and report three."""
    qa = tmp_path / "qa.jsonl"
    ids = ["1", "1", "2", "3", "3"]
    rows = [{"id": i, "question": f"who is [e{n}]?", "answers": ["x"]} for n, i in enumerate(ids)]
    qa.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "runs"
    code = main(["eval", "--method", "echo", "--data", f"jsonl:{qa}", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "'1' (lines 1, 2), '3' (lines 4, 5)" in err
    assert not out.exists()


def test_evaluate_refuses_a_dataset_whose_ids_repeat_or_are_empty(tmp_path: Path) -> None:
    llm = ScriptedLLM(lambda r: "{x}")
    twice = Dataset("d", [EvalExample("q", "a?", ("x",)), EvalExample("q", "b?", ("x",))])
    with pytest.raises(ConfigurationError, match=r"repeated question ids: 'q' \(questions 1, 2\)"):
        evaluate("io", twice, llm, out_dir=tmp_path / "a", progress=False)
    blank = Dataset("d", [EvalExample("", "a?", ("x",))])
    with pytest.raises(ConfigurationError, match="ids that are not non-empty strings: '' "):
        evaluate("io", blank, llm, out_dir=tmp_path / "b", progress=False)
    with pytest.raises(ConfigurationError, match="has no questions"):
        evaluate("io", Dataset("d", []), llm, out_dir=tmp_path / "c", progress=False)
    assert llm.requests == [] and listing(tmp_path) == []


# -- a model's metadata ---------------------------------------------------------------------------


class MeteredLLM:
    """Answers ``{x}`` with the given metadata."""

    def __init__(self, **metadata: Any) -> None:
        self.metadata = metadata
        self.calls = 0

    def generate(self, request: LLMRequest) -> LLMReply:
        self.calls += 1
        return LLMReply("{x}", **self.metadata)


@pytest.mark.parametrize("seconds", [math.nan, math.inf])
def test_a_nan_time_is_measured_instead_and_read_back(tmp_path: Path, seconds: float) -> None:
    run = evaluate("io", toy(), MeteredLLM(seconds=seconds), out_dir=tmp_path, progress=False,
                   plots=False)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every record reads back: no "bad record" warning
        records = read_traces(tmp_path / "io__toy.jsonl")
    assert [r["id"] for r in records] == ["q0", "q1", "q2"]
    # the model's time is not trusted: the driver measures the call instead
    assert all(math.isfinite(r["llm_seconds"]) and NULLED_FIELD not in r for r in records)
    assert run.records == records
    again = MeteredLLM(seconds=seconds)
    resumed = evaluate("io", toy(), again, out_dir=tmp_path, progress=False, plots=False)
    assert again.calls == 0 and resumed.skipped == 3  # a resume bills nothing again
    assert "| io | toy | 3 | 1.00 |" in (tmp_path / "summary.md").read_text()


@pytest.mark.parametrize(
    ("field", "value", "kept"),
    [
        ("prompt_tokens", "12", 12),
        ("prompt_tokens", -1, None),
        ("completion_tokens", -5, None),
        ("completion_tokens", 2.5, None),
        ("prompt_tokens", True, None),
        ("seconds", -0.1, 0.0),
        ("seconds", "1.5", 0.0),
        ("seconds", None, 0.0),
    ],
)
def test_a_malformed_reply_number_is_not_reported_never_an_error(
    field: str, value: Any, kept: Any
) -> None:
    fields: dict[str, Any] = {"text": "{x}", field: value}
    assert getattr(LLMReply(**fields), field) == kept


def test_a_reply_takes_integer_like_counts_as_int() -> None:
    class Count(int):
        pass

    reply = LLMReply("{x}", prompt_tokens=Count(3), completion_tokens=4, seconds=1)
    assert type(reply.prompt_tokens) is int and type(reply.seconds) is float


def test_negative_token_counts_are_not_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    run = evaluate("io", toy(), MeteredLLM(prompt_tokens=-3), out_dir=tmp_path, progress=False,
                   plots=False)  # fmt: skip
    assert [r["prompt_tokens"] for r in run.records] == [None, None, None]
    assert [r["id"] for r in read_traces(tmp_path / "io__toy.jsonl")] == ["q0", "q1", "q2"]


def test_the_writer_refuses_what_the_reader_would_refuse(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with pytest.raises(ConfigurationError, match="'run' is missing"):
        append_trace(path, {"id": "q1", "hit": True, "dataset": "d", "method": "io"})
    assert not path.exists()
    repaired = writable_record(trace_record("q1", total_seconds=-2.0, extra={"score": math.nan}))
    assert repaired["total_seconds"] is None and repaired["extra"] == {"score": None}
    assert repaired[NULLED_FIELD] == ["extra.score", "total_seconds"]
    assert record_problem(repaired) is None


# -- ghost rows ------------------------------------------------------------------------------------


def test_a_record_with_only_id_and_hit_is_no_table_row(tmp_path: Path) -> None:
    evaluate("io", toy(2), ScriptedLLM(lambda r: "{x}"), out_dir=tmp_path, progress=False,
             plots=False)  # fmt: skip
    (tmp_path / "io__toy.ids.json").unlink()  # count every record of the trace
    with (tmp_path / "io__toy.jsonl").open("a") as handle:
        handle.write(json.dumps({"id": "ghost", "hit": True}) + "\n")
    (tmp_path / "other__x.jsonl").write_text(json.dumps({"id": "g2", "hit": False}) + "\n")
    with pytest.warns(UserWarning, match="'dataset' is missing"):
        text = write_report(tmp_path, plots=False).read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 2 and rows[1].startswith("| io | toy | 2 | 1.00 |"), rows


# -- a full disk -----------------------------------------------------------------------------------


def fail_trace_writes(monkeypatch: pytest.MonkeyPatch, after: int = 0) -> list[int]:
    """Make writes to ``.jsonl`` files take ``after`` bytes at most, then fail with ENOSPC
    (other writes, pytest's own included, go through)."""
    real = os.write
    taken: list[int] = []

    def write(fd: int, data: Any) -> int:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if not target.endswith(".jsonl"):
            return real(fd, data)
        if not taken and after:
            taken.append(after)
            return real(fd, bytes(data)[:after])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(traces_module.os, "write", write)
    return taken


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd")
def test_a_full_disk_leaves_the_trace_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.jsonl"
    append_trace(path, trace_record("q1", hit=True))
    before = path.read_bytes()
    taken = fail_trace_writes(monkeypatch, after=7)  # part of the line, then a full disk
    with pytest.raises(OutputWriteError, match="No space left on device; the file is as it was"):
        append_trace(path, trace_record("q2", hit=True))
    assert taken == [7] and path.read_bytes() == before
    fresh = tmp_path / "fresh.jsonl"
    with pytest.raises(OutputWriteError):
        append_trace(fresh, trace_record("q1"))
    assert not fresh.exists()  # no empty trace left behind


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd")
def test_kgqa_eval_on_a_full_disk_exits_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"id": "1", "question": "who is [a]?", "answers": ["a"]}) + "\n")
    out = tmp_path / "runs"
    fail_trace_writes(monkeypatch, after=5)
    code = main(["eval", "--method", "echo", "--data", f"jsonl:{qa}", "--out", str(out), "--quiet",
                 "--no-plots"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and "No space left on device" in err, err
    assert not out.exists()  # the empty trace and the lock are gone, and so is the folder


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_trace_on_dev_full_is_an_output_write_error() -> None:
    with pytest.raises(OutputWriteError, match="No space left on device"):
        append_trace("/dev/full", trace_record("q1"))


def test_a_summary_that_cannot_be_written_leaves_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = write_report(tmp_path, plots=False)
    before = summary.read_bytes()

    def full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(traces_module.os, "replace", full)
    with pytest.raises(OutputWriteError, match="summary.md: No space left on device"):
        write_report(tmp_path, title="new", plots=False)
    assert summary.read_bytes() == before and listing(tmp_path) == ["summary.md"]


# -- reading ---------------------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_read_traces_refuses_a_device() -> None:
    with pytest.raises(ConfigurationError, match="is not a regular file"):
        read_traces("/dev/full")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_read_traces_refuses_a_pipe(tmp_path: Path) -> None:
    pipe = tmp_path / "io__toy.jsonl"
    os.mkfifo(pipe)
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    with pytest.raises(ConfigurationError, match="is not a regular file"):
        read_traces(pipe)  # would block for ever if opened


def test_a_line_over_the_cap_is_skipped_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(traces_module, "MAX_RECORD_BYTES", 400)
    path = tmp_path / "run.jsonl"
    good = json.dumps(trace_record("q1", hit=True))
    huge = json.dumps(trace_record("q2", prediction="y" * 5000))
    path.write_text(good + "\n" + huge + "\n" + json.dumps(trace_record("q3")) + "\n")
    with pytest.warns(UserWarning, match=r"run.jsonl:2: a line longer than 400 bytes"):
        assert [r["id"] for r in read_traces(path)] == ["q1", "q3"]


def test_evaluate_refuses_an_empty_summary_name_before_any_question(tmp_path: Path) -> None:
    llm = ScriptedLLM(lambda r: "{x}")
    with pytest.raises(ConfigurationError, match="summary_name is empty"):
        evaluate("io", toy(), llm, out_dir=tmp_path / "runs", summary_name=" ", progress=False)
    assert llm.requests == [] and not (tmp_path / "runs").exists()
