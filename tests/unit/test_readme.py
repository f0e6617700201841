"""README.md: every code block works as written when pasted on its own."""

from __future__ import annotations

import ast
import builtins
import re

import pytest

from tests.support.paths import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, flags=re.S)
PYTHON = [code for lang, code in BLOCKS if lang == "python"]
CONSOLE = [code for lang, code in BLOCKS if lang == "console"]


def defined_names(tree: ast.AST) -> set[str]:
    names = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def test_the_readme_has_code_blocks() -> None:
    assert len(PYTHON) >= 4 and len(CONSOLE) >= 4


@pytest.mark.parametrize("code", PYTHON, ids=[c.splitlines()[0][:40] for c in PYTHON])
def test_each_python_block_is_self_contained(code: str) -> None:
    tree = ast.parse(code)
    defined = defined_names(tree)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    assert used <= defined, f"undefined in the block: {sorted(used - defined)}"
    compile(tree, "README.md", "exec")


@pytest.mark.parametrize("code", CONSOLE, ids=[c.splitlines()[0][:40] for c in CONSOLE])
def test_console_lines_paste_as_written(code: str) -> None:
    for line in code.splitlines():
        assert "[--" not in line, f"optional-argument syntax in a command: {line}"
        assert '"..."' not in line and "'...'" not in line, f"placeholder: {line}"


def test_the_example_is_described_as_it_is() -> None:
    example = (REPO / "examples" / "gretriever_metaqa.py").read_text(encoding="utf-8")
    match = re.search(r'DEFAULT_QUESTION = "(.*)"', example)
    assert match is not None
    assert f'engine.query("{match.group(1)}")' in README
    assert "graph_query_engine(" in example and "graph_query_engine(" in README
    assert "first answer" in example and "build_index()" in README
