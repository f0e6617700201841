"""``kgqa load`` and ``kgqa ask --kg bolt://...`` against the test Bolt server."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from kgcore.graph.open import open_store
from kgqa.cli import main

if TYPE_CHECKING:
    from tests.support.neo4j_testserver import BoltServer


def test_kgqa_load_is_idempotent_and_readable(
    bolt_server: BoltServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setenv("NEO4J_USERNAME", bolt_server.username)
    monkeypatch.setenv("NEO4J_PASSWORD", bolt_server.password)
    if bolt_server.database:
        monkeypatch.setenv("NEO4J_DATABASE", bolt_server.database)
    kb = tmp_path / "kb.txt"
    kb.write_text("Giant|directed_by|George Stevens\nShane|directed_by|George Stevens\n")
    spec = f"{bolt_server.uri}?label=T{uuid.uuid4().hex[:12]}"

    assert main(["load", str(kb), "--kg", spec, "--quiet"]) == 0
    first = capsys.readouterr().out
    assert "read 2 triples" in first and "created 3 nodes and 2 relationships" in first
    assert main(["load", str(kb), "--kg", spec, "--quiet"]) == 0
    assert "created 0 nodes and 0 relationships" in capsys.readouterr().out

    store = open_store(spec)
    try:
        assert store.num_triples() == 2
        assert [t.other("George Stevens") for t in store.neighbors("George Stevens")] == [
            "Giant",
            "Shane",
        ]
    finally:
        store.close()
