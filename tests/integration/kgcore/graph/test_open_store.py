"""open_store / write_file_to_neo4j: one string picks the embedded store or a Neo4j server."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from kgcore.exceptions import GraphStoreError
from kgcore.graph.label_store import LabelGraphStore
from kgcore.graph.neo4j_loader import write_triples_to_neo4j
from kgcore.graph.neo4j_store import LLAMAINDEX_MAPPING, Neo4jGraphStore
from kgcore.graph.open import open_store, write_file_to_neo4j
from tests.support.neo4j_testserver import BoltServer, delete_label, fresh_mapping


def spec_for(server: BoltServer, label: str, extra: str = "") -> str:
    scheme, rest = server.uri.split("://", 1)
    auth = f"{quote(server.username, safe='')}:{quote(server.password, safe='')}@"
    return f"{scheme}://{auth}{rest}/{server.database or ''}?label={label}{extra}"


def test_uri_carries_credentials_database_and_mapping(
    bolt_server: BoltServer, tmp_path: Path
) -> None:
    path = tmp_path / "kb.txt"
    path.write_text("Heat|directed_by|Michael Mann\nHeat|release_year|1995\n", encoding="utf-8")
    spec = spec_for(bolt_server, "OpenT1", "&mapping=llamaindex")
    summary = write_file_to_neo4j(spec, path, progress=False)
    assert summary.relationships_created == 2
    store = open_store(spec)
    try:
        assert isinstance(store, Neo4jGraphStore)
        assert store.uri == bolt_server.uri  # the credentials are not part of the driver URI
        assert store.database == bolt_server.database
        assert store.mapping.node_label == "OpenT1"
        assert store.mapping.relation_from_type == LLAMAINDEX_MAPPING.relation_from_type
        assert [t.relation for t in store.neighbors("Heat")] == ["release_year", "directed_by"]
    finally:
        with store.driver.session(database=store.database) as session:
            session.execute_write(lambda tx: tx.run("MATCH (n:OpenT1) DETACH DELETE n").consume())
        store.close()


def test_bare_neo4j_reads_the_environment(
    bolt_server: BoltServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEO4J_URI", bolt_server.uri)
    monkeypatch.setenv("NEO4J_USERNAME", bolt_server.username)
    monkeypatch.setenv("NEO4J_PASSWORD", bolt_server.password)
    monkeypatch.setenv("NEO4J_DATABASE", bolt_server.database or "")
    store = open_store("neo4j")
    # The layout is discovered: whatever the server holds now, a store reading that server.
    assert isinstance(store, Neo4jGraphStore | LabelGraphStore) and store.uri == bolt_server.uri
    store.close()
    monkeypatch.setenv("NEO4J_PASSWORD", "wrong")
    with pytest.raises(GraphStoreError, match=bolt_server.uri.replace(".", r"\.")):
        open_store("neo4j")


def test_routing_scheme_works_too(bolt_server: BoltServer) -> None:
    """``neo4j://`` (routing: the driver asks the server for its routing table first)."""
    uri = bolt_server.uri.replace("bolt://", "neo4j://", 1)
    store = Neo4jGraphStore(
        uri,
        bolt_server.username,
        bolt_server.password,
        bolt_server.database,
        mapping=fresh_mapping(),
    )
    try:
        write_triples_to_neo4j(store, [("Heat", "directed_by", "Michael Mann")], progress=False)
        assert store.neighbors("Michael Mann") == [("Heat", "directed_by", "Michael Mann")]
    finally:
        delete_label(store, drop_schema=not bolt_server.is_arcadedb)
        store.close()
