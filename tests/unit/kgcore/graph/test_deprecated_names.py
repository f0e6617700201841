"""kgcore.graph's names say which way data flows; the former names warn and still work."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import kgcore.graph
import kgcore.gretriever
from kgcore.deprecation import KGRetrieverDeprecationWarning
from kgcore.exceptions import GraphLoadError, InvalidSettingError
from kgcore.graph.neo4j_loader import write_triples_to_neo4j
from kgcore.graph.open import write_file_to_neo4j


def test_load_triples_warns_and_calls_write_triples_to_neo4j() -> None:
    with pytest.warns(KGRetrieverDeprecationWarning, match="use write_triples_to_neo4j") as got:
        with pytest.raises(InvalidSettingError, match="batch_size"):  # the new function ran
            kgcore.graph.load_triples(object(), [], batch_size=0)  # type: ignore[arg-type]
    assert got[0].filename == __file__  # the warning points at the caller
    assert inspect.signature(kgcore.graph.load_triples) == inspect.signature(write_triples_to_neo4j)


def test_load_into_warns_and_calls_write_file_to_neo4j(tmp_path: Path) -> None:
    with pytest.warns(DeprecationWarning, match="load_into is deprecated; use write_file_to_neo4j"):
        with pytest.raises(GraphLoadError, match="not found"):  # checked before connecting
            kgcore.graph.load_into("bolt://127.0.0.1:1", tmp_path / "absent.txt")


def test_new_names_are_exported_and_old_ones_are_not() -> None:
    exported = set(kgcore.graph.__all__)
    assert {"read_triples", "write_triples_to_neo4j", "write_file_to_neo4j"} <= exported
    assert not {"load_triples", "load_into"} & exported
    assert kgcore.graph.write_file_to_neo4j is write_file_to_neo4j


def test_bracketed_entities_has_one_home() -> None:
    from kgcore.linking import bracketed_entities

    assert bracketed_entities("who directed [Heat]") == ["Heat"]
    assert not hasattr(kgcore.gretriever, "bracketed_entities")
