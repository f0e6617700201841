"""The builder knows no method by name (issue 63): each method registers what it needs in the
catalogue (its factory, config maker, extra options, settings classes), and the builder's code
reads the registry. Checked on the source: no condition of ``kgcore/builder`` compares with a
method's name."""

from __future__ import annotations

import ast
from pathlib import Path

from kgcore.builder import METHODS, get_method, method_config

BUILDER = Path(__file__).resolve().parents[4] / "kgcore" / "builder"


def _names_in_conditions(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for part in (node.left, *node.comparators):
                for leaf in ast.walk(part):
                    if isinstance(leaf, ast.Constant) and leaf.value in METHODS:
                        found.append(f"line {node.lineno}: {leaf.value!r}")
    return found


def test_no_condition_of_the_builder_names_a_method() -> None:
    bad = {
        path.name: names
        for path in sorted(BUILDER.glob("*.py"))
        if (names := _names_in_conditions(path.read_text(encoding="utf-8")))
    }
    assert not bad, f"method names in the builder's conditions: {bad}"


def test_the_check_catches_a_method_name_in_a_condition() -> None:
    assert _names_in_conditions('if name == "tog":\n    pass\n') == ["line 1: 'tog'"]
    assert _names_in_conditions('x = name in ("cgpe", "io")\n') == [
        "line 1: 'cgpe'",
        "line 1: 'io'",
    ]


def test_each_configured_method_registers_its_config_and_extras() -> None:
    assert get_method("cgpe").extra_options == ("type_of",)
    assert get_method("fasttog-node").make_config is not None
    assert method_config("fasttog-node").lcs.max_community_size == 1
    assert method_config("io") is None and get_method("io").make_config is None
    assert [c.__name__ for c in get_method("cot-sc").settings_classes()] == ["CoTSCConfig"]
