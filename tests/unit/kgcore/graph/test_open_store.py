"""open_store: paths, schemes and options, without a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError, GraphLoadError
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.open import is_neo4j_spec, open_store


def test_a_path_opens_the_embedded_store(tmp_path: Path) -> None:
    path = tmp_path / "kb.txt"
    path.write_text("Heat|directed_by|Michael Mann\n", encoding="utf-8")
    store = open_store(str(path), progress=False)
    assert isinstance(store, InMemoryGraphStore) and store.num_triples() == 1
    with pytest.raises(GraphLoadError):
        open_store(str(tmp_path / "missing.txt"), progress=False)


def test_schemes() -> None:
    for spec in ("bolt://h", "bolt+s://h", "neo4j://h:7687", "NEO4J+SSC://h", "neo4j"):
        assert is_neo4j_spec(spec), spec
    for spec in ("kb.txt", "http://h", "./neo4j", "neo4j.txt"):
        assert not is_neo4j_spec(spec), spec


def test_bad_options_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="unknown mapping"):
        open_store("bolt://127.0.0.1:1?mapping=nope")
    with pytest.raises(ConfigurationError, match="unknown options"):
        open_store("bolt://127.0.0.1:1?colour=red")
    with pytest.raises(ConfigurationError, match="invalid Cypher"):
        open_store("bolt://127.0.0.1:1?label=x%60%20DETACH")
