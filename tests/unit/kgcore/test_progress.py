"""Quiet by default in a library (issue 66): no progress bar unless stderr is a terminal or
the caller asks; the command line asks."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from kgcore.graph import InMemoryGraphStore
from kgcore.progress import quiet_model_loading, show_progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    path = tmp_path / "kb.txt"
    path.write_text("Cleopatra|directed_by|Joseph L. Mankiewicz\n", encoding="utf-8")
    return path


def test_loading_a_graph_draws_a_bar_only_on_a_terminal_or_when_asked(
    kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    InMemoryGraphStore.from_file(kb)
    assert "loading kb.txt" not in log.getvalue()
    InMemoryGraphStore.from_file(kb, progress=True)
    assert "loading kb.txt" in log.getvalue()
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    InMemoryGraphStore.from_file(kb)
    assert "loading kb.txt" in terminal.getvalue()
    assert show_progress() and not show_progress(False)


def test_model_loading_is_quiet_off_a_terminal_and_the_setting_is_restored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hf_logging = pytest.importorskip("transformers.utils.logging")
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert hf_logging.is_progress_bar_enabled()
    with quiet_model_loading():
        assert not hf_logging.is_progress_bar_enabled()
    assert hf_logging.is_progress_bar_enabled()
    with quiet_model_loading(show=True):
        assert hf_logging.is_progress_bar_enabled()
