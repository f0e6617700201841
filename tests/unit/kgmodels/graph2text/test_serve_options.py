"""``kgqa g2t serve`` and ``python -m kgmodels.graph2text.serve`` check every option at the door:
a bad value is one line on stderr and exit status 2, before any server library or model loads.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.text.graph2text.causal import is_model_folder
from kglocal.locations import G2T_MODEL_NAME, G2T_SMOLLM2_NAME
from kgmodels.graph2text import serve_options
from kgmodels.graph2text.serve_options import (
    add_serve_arguments,
    check_serve_options,
    exposure_warning,
)
from kgqa.cli import main
from tests.support.graph2text_default import BOTH_WAYS, simulate_runnable, without
from tests.support.paths import REPO

BAD = [
    (["--port", "-1"], "--port must be an integer from 1024 to 65535, got -1"),
    (["--port", "80"], "--port must be an integer from 1024 to 65535, got 80"),
    (["--port", "70000"], "--port must be an integer from 1024 to 65535, got 70000"),
    (["--max-batch-size", "0"], "--max-batch-size must be an integer of at least 1, got 0"),
    (["--batch-timeout", "-1"], "--batch-timeout must be a finite number of seconds, 0 or more"),
    (["--batch-timeout", "nan"], "--batch-timeout must be a finite number of seconds"),
    (["--threads", "-3"], "--threads must be an integer of at least 1, got -3"),
    (["--beams", "0"], "--beams must be an integer of at least 1, got 0"),
    (["--timeout", "0"], "--timeout must be a finite number of seconds, more than 0"),
    (["--read-timeout", "-2"], "--read-timeout must be a finite number of seconds, more than 0"),
    (["--read-timeout", "inf"], "--read-timeout must be a finite number of seconds"),
    (["--max-body-bytes", "0"], "--max-body-bytes must be an integer of at least 1, got 0"),
    (["--host", "192.0.2.1"], "--host must be 127.0.0.1, localhost, 0.0.0.0 or ::"),
    (["--token", ""], "--token is empty"),
    (["--token", "two words"], "--token must be printable ASCII without spaces"),
    (["/no/such/model-folder"], "no Graph2Text model folder '/no/such/model-folder'"),
    (["no-such-model"], "no Graph2Text model folder 'no-such-model'"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_option_is_one_line_and_exit_2(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KG_G2T_TOKEN", raising=False)
    assert main(["g2t", "serve", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("kgqa: error: ") and message in err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_an_empty_token_variable_is_no_token_and_a_bad_one_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    monkeypatch.setenv("KG_G2T_TOKEN", "")
    assert check_serve_options(parser.parse_args([])).token is None
    monkeypatch.setenv("KG_G2T_TOKEN", "tab\there")
    with pytest.raises(ConfigurationError, match="KG_G2T_TOKEN must be printable ASCII"):
        check_serve_options(parser.parse_args([]))
    monkeypatch.setenv("KG_G2T_TOKEN", "s3cret")
    assert check_serve_options(parser.parse_args([])).token == "s3cret"
    assert check_serve_options(parser.parse_args(["--token", "other"])).token == "other"


def test_good_options_are_kept_and_localhost_is_the_loopback_address() -> None:
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    options = check_serve_options(
        parser.parse_args(["--host", "localhost", "--port", "1024", "--batch-timeout", "0"])
    )
    assert (options.host, options.port, options.batch_timeout) == ("127.0.0.1", 1024, 0.0)
    assert is_model_folder(Path(options.model))  # the default model's folder
    assert options.model_name in (G2T_MODEL_NAME, G2T_SMOLLM2_NAME)


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("kgqa.cli", "2 []"),  # neither the server library nor torch
        ("kgmodels.graph2text.serve", "2 ['litserve']"),  # the server module itself: no torch
    ],
)
def test_the_door_is_passed_before_any_server_library_or_model_loads(
    module: str, expected: str
) -> None:
    prefix = ["g2t", "serve"] if module == "kgqa.cli" else []
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['x', *{prefix!r}, '--port', '-1']\n"
        "try:\n"
        f"    runpy.run_module({module!r}, run_name='__main__')\n"
        "except SystemExit as stop:\n"
        "    loaded = [m for m in ('litserve', 'torch', 'transformers') if m in sys.modules]\n"
        "    print(stop.code, loaded)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.stdout.strip() == expected
    assert done.stderr.count("\n") == 1 and "--port must be an integer" in done.stderr


def test_an_exposed_server_without_a_token_warns_once_before_it_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kgmodels.graph2text import serve

    started: list[str] = []
    monkeypatch.setattr(serve, "build_server", lambda *a, **k: started.append("build"))
    monkeypatch.setattr(serve, "run_server", lambda *a, **k: started.append("run"))
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    monkeypatch.delenv("KG_G2T_TOKEN", raising=False)
    for argv, warned in (
        (["--host", "0.0.0.0"], True),
        (["--host", "::"], True),
        (["--host", "0.0.0.0", "--token", "t"], False),
        (["--host", "127.0.0.1"], False),
    ):
        assert serve.serve(check_serve_options(parser.parse_args(argv))) == 0
        err = capsys.readouterr().err
        if warned:
            assert err.count("\n") == 1 and err.startswith("WARNING: serving on ")
            assert "no token" in err and "--token" in err
        else:
            assert err == ""
    assert started == ["build", "run"] * 4


def test_the_warning_names_the_address_and_what_is_open() -> None:
    line = exposure_warning("::", None)
    assert line is not None and "::" in line and "/predict" in line and "\n" not in line
    assert serve_options.LOOPBACK_HOSTS >= {"127.0.0.1", "localhost"}


@pytest.mark.parametrize(("missing", "expected"), BOTH_WAYS)
def test_the_start_up_line_and_healthz_name_the_model_served(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    missing: tuple[str, ...],
    expected: str,
) -> None:
    """Without a model: the fine-tuned SmolLM2 with the g2t extra, the T5 without peft, with
    the fallback line appended (issue 50)."""
    from kgmodels.graph2text import serve

    simulate_runnable(monkeypatch)
    without(monkeypatch, *missing)
    built: list[dict[str, Any]] = []
    monkeypatch.setattr(serve, "build_server", lambda *a, **k: built.append(k))
    monkeypatch.setattr(serve, "run_server", lambda *a, **k: None)
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    assert serve.serve(check_serve_options(parser.parse_args(["--port", "8123"]))) == 0
    line = capsys.readouterr().out
    assert line.count("\n") == 1
    assert line.startswith(f"Graph2Text server: model {expected} (")
    assert "http://127.0.0.1:8123" in line
    assert built[0]["model_name"] == expected  # what /healthz says
    assert ("pip install 'kg-retrievers[g2t]'" in line) == bool(missing)
