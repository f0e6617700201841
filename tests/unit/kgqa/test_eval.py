"""``kgqa eval``: end to end with a fake chat model, resume, report-only, bad input."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

import langchain_fasttog.models as models
from kgcore.exceptions import ConfigurationError
from kgqa.eval import add_eval_subcommand, parse_option, run_eval_command
from tests.support.records import trace_record


@pytest.fixture()
def data(tmp_path: Path) -> tuple[Path, Path]:
    kb = tmp_path / "kb.txt"
    kb.write_text(
        "Cleopatra|directed_by|Joseph L. Mankiewicz\nCobra|starred_actors|Brigitte Nielsen\n"
    )
    qa = tmp_path / "qa.jsonl"
    rows = [
        {"id": "a", "question": "who directed [Cleopatra]", "answers": ["Joseph L. Mankiewicz"]},
        {"id": "b", "question": "which film stars [Brigitte Nielsen]", "answers": ["Cobra"]},
    ]
    qa.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return kb, qa


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kgqa")
    add_eval_subcommand(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def fake_models(monkeypatch: pytest.MonkeyPatch, responses: list[str]) -> list[str]:
    seen: list[str] = []

    def resolve(spec: str) -> FakeListChatModel:
        seen.append(spec)
        return FakeListChatModel(responses=responses)

    monkeypatch.setattr(models, "resolve_chat_model", resolve)
    return seen


def test_eval_runs_methods_over_data_and_writes_the_report(
    tmp_path: Path,
    data: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    kb, qa = data
    seen = fake_models(monkeypatch, ["Yes {Joseph L. Mankiewicz}", "Yes {Cobra}"])
    out = tmp_path / "out"
    args = parse(
        [
            "eval",
            "--method",
            "tog",
            "--data",
            f"jsonl:{qa}",
            "--kg",
            str(kb),
            "--llm",
            "fake:x",
            "--out",
            str(out),
            "--quiet",
            "--summary",
            "report.md",
            "--title",
            "Toy",
        ]
    )
    assert args.handler(args) == 0
    assert seen == ["fake:x"]
    report = (out / "report.md").read_text()
    assert report.startswith("# Toy")
    assert "| tog | qa | 2 | 1.00 |" in report
    assert (out / "report_accuracy_vs_calls.png").exists()
    assert "| tog | qa | 2 | 1.00 |" in capsys.readouterr().out
    traces = list(out.glob("tog__qa.jsonl"))
    assert len(traces) == 1 and len(traces[0].read_text().splitlines()) == 2

    # A second run resumes: the fake model has no replies left, yet nothing is asked of it.
    fake_models(monkeypatch, [])
    assert args.handler(args) == 0
    assert len(traces[0].read_text().splitlines()) == 2


def test_eval_with_options_names_the_run(
    tmp_path: Path, data: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    kb, qa = data
    fake_models(monkeypatch, ["{x}"] * 10)
    args = parse(
        [
            "eval",
            "--method",
            "io,cot-sc",
            "--data",
            f"jsonl:{qa}:1",
            "--set",
            "n=2",
            "--out",
            str(tmp_path),
            "--quiet",
            "--no-plots",
            "--llm",
            "p:m",
        ]
    )
    with pytest.raises(ConfigurationError, match="bad option"):
        run_eval_command(args)  # io takes no ``n``
    args = parse(
        [
            "eval",
            "--method",
            "cot-sc",
            "--data",
            f"jsonl:{qa}:1",
            "--set",
            "n=2",
            "--out",
            str(tmp_path),
            "--quiet",
            "--no-plots",
            "--llm",
            "p:m",
        ]
    )
    assert run_eval_command(args) == 0
    record = json.loads((tmp_path / "cot-sc_n=2___qa.jsonl").read_text().splitlines()[0])
    assert record["run"] == "cot-sc[n=2]" and record["llm_calls"] == 2


def test_report_only_needs_no_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = fake_models(monkeypatch, [])
    (tmp_path / "io__d.jsonl").write_text(json.dumps(trace_record("1", hit=True)) + "\n")
    args = parse(["eval", "--report-only", "--out", str(tmp_path), "--no-plots"])
    assert run_eval_command(args) == 0
    assert seen == []
    assert "| io | d | 1 | 1.00 |" in (tmp_path / "summary.md").read_text()


def test_bad_input_fails_before_the_model_loads(
    tmp_path: Path, data: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = fake_models(monkeypatch, [])
    _, qa = data
    with pytest.raises(ConfigurationError, match="unknown method"):
        run_eval_command(
            parse(["eval", "--method", "tot", "--data", f"jsonl:{qa}", "--out", str(tmp_path)])
        )
    with pytest.raises(ConfigurationError, match="needs --method and --data"):
        run_eval_command(parse(["eval", "--method", "io", "--out", str(tmp_path)]))
    with pytest.raises(ConfigurationError, match="unknown dataset"):
        run_eval_command(
            parse(["eval", "--method", "io", "--data", "foo:1", "--out", str(tmp_path)])
        )
    assert seen == []


def test_kgqa_main_knows_the_eval_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kgqa.cli import main

    assert main(["eval", "--method", "tot", "--data", "metaqa:1hop:1", "--out", str(tmp_path)]) == 2
    assert "unknown method 'tot'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("width=2", ("width", 2)),
        ("decay=0.5", ("decay", 0.5)),
        ("fallback=io", ("fallback", "io")),
        ("use-topic-entities=false", ("use_topic_entities", False)),
        ("x=None", ("x", None)),
    ],
)
def test_parse_option(text: str, expected: tuple[str, object]) -> None:
    assert parse_option(text) == expected


def test_parse_option_refuses_a_missing_value() -> None:
    with pytest.raises(ConfigurationError, match="KEY=VALUE"):
        parse_option("width")


def test_local_models_are_warmed_up_before_the_clock_runs(
    tmp_path: Path, data: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, qa = data
    # The first reply goes to the warm-up call and is not recorded.
    fake_models(monkeypatch, ["OK", "{Joseph L. Mankiewicz}"])
    args = parse(
        ["eval", "--method", "io", "--data", f"jsonl:{qa}:1", "--llm", "local",
         "--out", str(tmp_path), "--quiet", "--no-plots"]
    )  # fmt: skip
    assert run_eval_command(args) == 0
    record = json.loads((tmp_path / "io__qa.jsonl").read_text())
    assert record["hit"] is True and record["llm_calls"] == 1


def test_echo_loads_no_model_even_with_the_default_llm(
    tmp_path: Path, data: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, qa = data
    seen = fake_models(monkeypatch, [])
    out = tmp_path / "out"
    argv = ["eval", "--method", "echo", "--data", f"jsonl:{qa}", "--out", str(out), "--quiet"]
    args = parse([*argv, "--no-plots"])
    assert args.llm == "local"  # the default, never resolved: echo asks no model
    assert args.handler(args) == 0
    assert seen == []
    records = [json.loads(line) for line in (out / "echo__qa.jsonl").read_text().splitlines()]
    assert [(r["prediction"], r["llm_calls"], r["hit"]) for r in records] == [
        ("Cleopatra", 0, False),
        ("Brigitte Nielsen", 0, False),
    ]
