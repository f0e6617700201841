"""The notebooks' first output: the commit they ran at, and whether the checkout was clean."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

RECORD = Path(__file__).resolve().parents[3] / "examples" / "notebooks" / "notebook_record.py"


@pytest.fixture
def record() -> ModuleType:
    spec = importlib.util.spec_from_file_location("notebook_record", RECORD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["notebook_record"] = module
    spec.loader.exec_module(module)
    return module


def _fake_run(status: str) -> object:
    """``subprocess.run`` answering ``git rev-parse`` and ``git status`` as git prints them."""

    def run(command: list[str], **kwargs: object) -> SimpleNamespace:
        out = "abc1234\n" if command[1] == "rev-parse" else status + "\n"
        return SimpleNamespace(returncode=0, stdout=out)

    return run


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        # git's porcelain lines begin with a space when the change is not staged.
        (
            " M examples/notebooks/compare_methods.ipynb",
            "commit abc1234, clean (the notebooks aside)",
        ),
        ("M  examples/notebooks/a.ipynb\n M examples/notebooks/b.ipynb", "commit abc1234, clean"),
        (" M kgcore/linking.py", "commit abc1234, DIRTY: uncommitted changes in kgcore/linking.py"),
        (
            " M examples/notebooks/a.ipynb\nM  README.md",
            "commit abc1234, DIRTY: uncommitted changes in README.md",
        ),
    ],
)
def test_the_record_ignores_the_notebooks_and_names_other_changes(
    record: ModuleType, monkeypatch: pytest.MonkeyPatch, status: str, expected: str
) -> None:
    monkeypatch.setattr(record.subprocess, "run", _fake_run(status))
    assert record.commit_line().startswith(expected)
