"""Neo4jGraphStore without a server: the mapping, connection settings and errors."""

from __future__ import annotations

import socket
import sys
import threading
import time

import pytest

from kgcore.exceptions import ConfigurationError, GraphStoreError, MissingDependencyError
from kgcore.graph.neo4j_store import (
    DEFAULT_MAPPING,
    LLAMAINDEX_MAPPING,
    GraphMapping,
    Neo4jGraphStore,
    import_neo4j,
)

pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")


def test_mapping_rejects_identifiers_that_are_not_plain() -> None:
    for bad in ("x` DETACH DELETE n //", "", "1abc", "a b", "a-b", "ünï"):
        with pytest.raises(ConfigurationError):
            GraphMapping(node_label=bad)
        with pytest.raises(ConfigurationError):
            GraphMapping(relationship_type=bad)
    with pytest.raises(ConfigurationError):
        GraphMapping(relationship_type="REL", relation_property=None)
    assert DEFAULT_MAPPING.relation_expr() == "r.`relation`"
    assert LLAMAINDEX_MAPPING.relation_expr() == "type(r)"


def test_missing_uri_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEO4J_URI", raising=False)
    with pytest.raises(ConfigurationError, match="NEO4J_URI"):
        Neo4jGraphStore()


def test_refused_port_fails_fast_naming_the_uri() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again before the driver connects
    uri = f"bolt://127.0.0.1:{port}"
    start = time.perf_counter()
    with pytest.raises(GraphStoreError, match="cannot reach Neo4j") as info:
        Neo4jGraphStore(uri, "neo4j", "pw")
    assert uri in str(info.value)
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("scheme,timeout", [("bolt", None), ("neo4j", 2.0)])
def test_silent_server_times_out_within_five_seconds(scheme: str, timeout: float | None) -> None:
    """A listener that accepts TCP but never answers the Bolt handshake (a hung server)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    uri = f"{scheme}://127.0.0.1:{listener.getsockname()[1]}"
    try:
        start = time.perf_counter()
        with pytest.raises(GraphStoreError, match="cannot reach Neo4j") as info:
            if timeout is None:
                Neo4jGraphStore(uri, "neo4j", "pw")  # the default: 4 s
            else:
                Neo4jGraphStore(uri, "neo4j", "pw", connect_timeout=timeout)
        elapsed = time.perf_counter() - start
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()
    assert uri in str(info.value)
    assert elapsed < (timeout or 4.0) + 1.0  # within 5 s by default, with slack for load


def test_invalid_uri_is_a_graph_store_error() -> None:
    with pytest.raises(GraphStoreError, match="http://127.0.0.1:1"):
        Neo4jGraphStore("http://127.0.0.1:1", "neo4j", "pw")


def test_missing_driver_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "neo4j", None)
    with pytest.raises(MissingDependencyError, match=r"kg-retrievers\[neo4j\]"):
        import_neo4j()
    with pytest.raises(MissingDependencyError):
        Neo4jGraphStore("bolt://127.0.0.1:1", "neo4j", "pw")
