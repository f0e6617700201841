"""Neo4jGraphStore's connection errors and timeout settings, without a server."""

from __future__ import annotations

import pytest

from kgcore.exceptions import GraphStoreError, InvalidSettingError
from kgcore.graph.neo4j_store import Neo4jGraphStore

pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")


def test_unknown_host_is_a_graph_store_error() -> None:
    with pytest.raises(GraphStoreError, match="no-such-host.invalid"):
        Neo4jGraphStore("bolt://no-such-host.invalid", "neo4j", "pw")


def test_timeouts_are_validated() -> None:
    with pytest.raises(InvalidSettingError, match="query_timeout"):
        Neo4jGraphStore("bolt://127.0.0.1:1", "neo4j", "pw", query_timeout=0, verify=False)
