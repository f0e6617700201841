"""kgcore.graph's names say which way data flows; the pre-release names are gone."""

from __future__ import annotations

import pytest

import kgcore.graph
import kgcore.graph.neo4j_loader
import kgcore.graph.open
import kgcore.gretriever
from kgcore.graph.open import write_file_to_neo4j


def test_new_names_are_exported() -> None:
    exported = set(kgcore.graph.__all__)
    assert {"read_triples", "write_triples_to_neo4j", "write_file_to_neo4j"} <= exported
    assert kgcore.graph.write_file_to_neo4j is write_file_to_neo4j


@pytest.mark.parametrize(
    ("module", "name"),
    [
        (kgcore.graph, "load_triples"),
        (kgcore.graph, "load_into"),
        (kgcore.graph.neo4j_loader, "load_triples"),
        (kgcore.graph.open, "load_into"),
    ],
)
def test_the_former_names_are_gone(module: object, name: str) -> None:
    assert not hasattr(module, name)


def test_bracketed_entities_has_one_home() -> None:
    from kgcore.linking import bracketed_entities

    assert bracketed_entities("who directed [Heat]") == ["Heat"]
    assert not hasattr(kgcore.gretriever, "bracketed_entities")


def test_the_deprecation_helper_is_gone() -> None:
    import importlib.util

    assert importlib.util.find_spec("kgcore.deprecation") is None
