"""Bad files and out-of-range settings end kgqa with a clear error and exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgqa.cli import main


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"a|r|b\n\x89PNG\r\n\x1a\n", "kb.txt:2: not UTF-8 text"),
        (b"a|r|b\n\x00\x00\x00|r|x\n", "kb.txt:2: binary data"),
        (b"a|r|b\nbroken\n", "kb.txt:2: malformed"),
    ],
)
def test_load_refuses_a_bad_file_before_connecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "kb.txt"
    path.write_bytes(content)
    # port 1 is closed: the file is checked before any connection is tried
    assert main(["load", str(path), "--kg", "bolt://127.0.0.1:1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_load_and_ask_name_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "kb.txt"
    folder.mkdir()
    assert main(["load", str(folder), "--kg", "bolt://127.0.0.1:1", "--quiet"]) == 2
    assert "is a directory" in capsys.readouterr().err
    assert main(["ask", "who directed [Heat]", "--kg", str(folder), "--quiet"]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_ask_refuses_a_depth_over_the_maximum(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text("Heat|directed_by|Michael Mann\n")
    code = main(["ask", "who directed [Heat]", "--kg", str(kb), "--depth", "100000", "--quiet"])
    assert code == 2
    assert "max_depth=100000 is out of range" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--width", "0"], "width"),
        (["--depth", "0"], "max_depth"),
        (["--max-community-size", "0"], "max_community_size"),
        (["--width", "1000"], "width=1000 is out of range"),
    ],
)
def test_ask_bad_setting_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str], message: str
) -> None:
    # the settings are checked before the graph is read: the file need not exist
    missing = tmp_path / "absent.txt"
    assert main(["ask", "who directed [Heat]", "--kg", str(missing), *option, "--quiet"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kgqa: error: "), captured.err
    assert message in lines[0]
    assert captured.out == ""


def test_ask_without_a_graph_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("KGQA_KG", raising=False)
    assert main(["ask", "who directed [Heat]", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == "kgqa: error: no knowledge graph: pass --kg PATH or set KGQA_KG\n"
