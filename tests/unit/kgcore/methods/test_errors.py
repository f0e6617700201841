"""The methods' error contract: bad settings raise the project's errors, never bare ValueError."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

from kgcore.exceptions import InvalidSettingError, KGRetrieverError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM, run_steps
from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.gretriever.qa import GRetrieverQA
from kgcore.methods.kernel import cot_sc_steps

ROOT = Path(__file__).resolve().parents[4]
SOURCES = sorted((ROOT / "kgcore" / "methods").rglob("*.py"))


def _raised_names(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name):
                names.append(exc.id)
    return names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_method_module_raises_a_builtin_value_error(path: Path) -> None:
    assert "ValueError" not in _raised_names(path)


STORE = InMemoryGraphStore.from_triples([("a", "r", "b")])


@pytest.mark.parametrize(
    "make",
    [
        lambda: PromptBaseline("guess"),
        lambda: run_steps(cot_sc_steps("q?", n=0), ScriptedLLM([])),
        lambda: GRetrieverQA(STORE, max_graph_tokens=0),
        lambda: GRetrieverQA(STORE, chars_per_token=0),
    ],
)
def test_bad_method_settings_raise_invalid_setting_error(make: Callable[[], object]) -> None:
    with pytest.raises(InvalidSettingError) as caught:
        make()
    assert isinstance(caught.value, KGRetrieverError) and isinstance(caught.value, ValueError)
