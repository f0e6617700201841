"""``kgqa load --create-indexes`` makes the indexes before it writes a triple (issue 51, item
5): a server that makes its indexes another way (ArcadeDB) refuses with exit 2, one line, and
no triple written; where the server makes them (Neo4j), the load goes on."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from kgcore.graph.open import open_store
from kgqa.cli import main
from tests.support.neo4j_testserver import BoltServer, delete_label


def test_create_indexes_is_tried_before_any_triple_is_written(
    bolt_server: BoltServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text("".join(f"film {i}|directed_by|person {i % 7}\n" for i in range(30)))
    spec = f"{bolt_server.uri}?label=T{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("NEO4J_USERNAME", bolt_server.username)
    monkeypatch.setenv("NEO4J_PASSWORD", bolt_server.password)
    if bolt_server.database:
        monkeypatch.setenv("NEO4J_DATABASE", bolt_server.database)
    code = main(["load", str(kb), "--kg", spec, "--create-indexes", "--quiet"])
    captured = capsys.readouterr()
    store = open_store(spec)
    try:
        if bolt_server.is_arcadedb:
            assert code == 2, captured.err
            assert len(captured.err.splitlines()) == 1, captured.err
            assert "ArcadeDB creates indexes with its SQL only" in captured.err
            assert captured.out == "" and store.num_triples() == 0  # nothing was written
        else:
            assert code == 0, captured.err
            assert captured.out.startswith("indexes: full-text index")
            assert store.num_triples() == 30
    finally:
        delete_label(store, drop_schema=not bolt_server.is_arcadedb)
        store.close()
