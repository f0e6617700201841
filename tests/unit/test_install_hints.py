"""Every install hint in the packages names an extra that exists, and that extra installs what
the hint says is missing (issue 66)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import PACKAGES, REPO

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

#: Import names whose distribution is named otherwise.
DISTRIBUTIONS = {"llama_cpp": "llama-cpp-python", "langchain_core": "langchain-core"}
#: ``MissingDependencyError("package", "extra")``, ``require_module("module", "extra")``.
CALL = re.compile(
    r"(?:MissingDependencyError|require_module)\(\s*\"([^\"]+)\",\s*(\"[^\"]+\"|None)", re.S
)
#: ``kg-retrievers[extra]`` written out in a message.
WRITTEN = re.compile(r"kg-retrievers\[([a-z0-9-]+)\]")


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _project() -> dict[str, object]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def installed_by(extra: str | None) -> set[str]:
    """The distributions ``pip install 'kg-retrievers[extra]'`` names (extras expanded)."""
    project = _project()
    extras: dict[str, list[str]] = project["optional-dependencies"]  # type: ignore[assignment]
    names = {_name(r) for r in project["dependencies"]}  # type: ignore[attr-defined]
    todo = [extra] if extra else []
    while todo:
        for requirement in extras[todo.pop()]:
            inner = re.fullmatch(r"kg-retrievers\[([^\]]+)\]", requirement)
            if inner:
                todo += inner.group(1).split(",")
            else:
                names.add(_name(requirement))
    return names


def _sources() -> list[tuple[Path, str]]:
    """Each module's text, less its doctest lines (their made-up modules and extras)."""
    return [
        (path, "\n".join(line for line in lines if not line.lstrip().startswith((">>>", "..."))))
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
        for lines in [path.read_text(encoding="utf-8").splitlines()]
    ]


def test_every_hint_names_an_extra_that_installs_the_missing_package() -> None:
    extras = set(_project()["optional-dependencies"])  # type: ignore[arg-type]
    hints = [
        (path, m.group(1), m.group(2)) for path, text in _sources() for m in CALL.finditer(text)
    ]
    assert len(hints) >= 15  # the scan finds the hints
    wrong = []
    for path, package, quoted in hints:
        extra = None if quoted == "None" else quoted.strip('"')
        if extra is not None and extra not in extras:
            wrong.append(f"{path.name}: {package} -> [{extra}]: no such extra")
            continue
        wanted = [DISTRIBUTIONS.get(p, p).lower().replace("_", "-") for p in package.split(" and ")]
        missing = [p for p in wanted if p not in installed_by(extra)]
        if missing:
            wrong.append(f"{path.name}: [{extra}] does not install {missing}")
    assert not wrong, wrong


def test_every_extra_written_in_a_message_exists() -> None:
    extras = set(_project()["optional-dependencies"])  # type: ignore[arg-type]
    written = {(path.name, m.group(1)) for path, text in _sources() for m in WRITTEN.finditer(text)}
    assert written
    assert not [(name, extra) for name, extra in written if extra not in extras]


def test_the_tested_packages_are_the_ones_the_wheel_ships() -> None:
    build = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]
    assert tuple(build["build"]["targets"]["wheel"]["packages"]) == PACKAGES
