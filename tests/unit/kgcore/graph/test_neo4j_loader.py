"""The Neo4j loader's write query, without a server."""

from __future__ import annotations

import pytest

from kgcore.graph.neo4j_loader import write_queries
from kgcore.graph.neo4j_store import DEFAULT_MAPPING, LLAMAINDEX_MAPPING

pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")


def test_write_query_keeps_values_out_of_the_text() -> None:
    text = write_queries(DEFAULT_MAPPING)
    assert "$rows" in text and "'" not in text and '"' not in text
    assert "MERGE (h:`__Entity__`:`__Node__`:`entity` {`name`: row[0]})" in write_queries(
        LLAMAINDEX_MAPPING, "directed_by"
    )
