"""A paused or dead Bolt server ends a write with GraphStoreError within ``write_timeout``.

The server is the fixture's ArcadeDB, paused with SIGSTOP (connections stay open, nothing is
answered) and always continued with SIGCONT; a dead server is a killed proxy in front of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest

from kgcore.exceptions import GraphStoreError
from kgcore.graph.neo4j_indexes import create_indexes
from kgcore.graph.neo4j_loader import ensure_schema, write_triples_to_neo4j
from kgcore.graph.neo4j_store import Neo4jGraphStore
from kgcore.gretriever.store_vectors import write_embeddings
from tests.support.fake_embedder import FakeEmbedder
from tests.support.neo4j_testserver import (
    BoltServer,
    ServerPause,
    fresh_mapping,
    join_abandoned_writes,
    pausable,
)
from tests.support.tcp_proxy import StallingProxy

MakeStore = Callable[..., Neo4jGraphStore]
WRITE_TIMEOUT = 2.0
#: Time allowed past the deadline for the error to reach the caller (a loaded CI machine).
SLACK = 1.0
TRIPLES = [(f"film {i}", "directed_by", f"person {i % 7}") for i in range(50)]


def test_server_paused_mid_load_ends_in_graph_store_error_with_the_resume_hint(
    bolt_server: BoltServer, make_store: MakeStore
) -> None:
    store = make_store(write_timeout=WRITE_TIMEOUT)
    with pausable(bolt_server) as pause:

        def source() -> Iterator[tuple[str, str, str]]:
            for number, triple in enumerate(TRIPLES):
                if number == 20:  # two batches of 10 are written: pause before the third
                    pause.pause()
                yield triple

        with pytest.raises(GraphStoreError) as caught:
            write_triples_to_neo4j(store, source(), batch_size=10, progress=False, validate=False)
        waited = time.perf_counter() - (pause.paused_at or 0.0)
        message = str(caught.value)
        assert "write of batch 3" in message
        assert f"no answer within {WRITE_TIMEOUT:g} s (write_timeout)" in message
        assert "20 triples (2 batches) were written before the failure" in message
        assert "run the same load again to resume" in message
        assert bolt_server.uri in message
        assert WRITE_TIMEOUT - 0.1 <= waited < WRITE_TIMEOUT + SLACK
    join_abandoned_writes()
    # Resumed: the same load again completes the graph (MERGE skips what is there).
    summary = write_triples_to_neo4j(store, TRIPLES, batch_size=10, progress=False)
    assert summary.triples_read == len(TRIPLES)
    assert store.num_triples() == len(TRIPLES)


def test_server_paused_before_the_load_fails_on_the_schema_within_write_timeout(
    bolt_server: BoltServer, make_store: MakeStore
) -> None:
    store = make_store(write_timeout=WRITE_TIMEOUT)
    assert store.num_nodes() == 0  # connected before the pause
    with pausable(bolt_server) as pause:
        pause.pause()
        with pytest.raises(GraphStoreError) as caught:
            write_triples_to_neo4j(store, TRIPLES, batch_size=10, progress=False)
        waited = time.perf_counter() - (pause.paused_at or 0.0)
    join_abandoned_writes()
    message = str(caught.value)
    assert "constraint" in message and "(write_timeout)" in message
    assert "No triples were written" in message
    assert waited < WRITE_TIMEOUT + SLACK


@pytest.mark.parametrize(
    ("name", "write"),
    [
        ("ensure_schema", ensure_schema),
        ("create_indexes", create_indexes),
        ("write_triples_to_neo4j", lambda store: write_triples_to_neo4j(store, TRIPLES)),
    ],
)
def test_every_write_path_ends_in_graph_store_error_on_a_paused_server(
    bolt_server: BoltServer,
    make_store: MakeStore,
    name: str,
    write: Callable[[Neo4jGraphStore], object],
) -> None:
    store = make_store(write_timeout=WRITE_TIMEOUT)
    assert store.num_nodes() == 0
    with pausable(bolt_server) as pause:
        pause.pause()
        with pytest.raises(GraphStoreError, match=r"no answer within 2 s \(write_timeout\)"):
            write(store)
        waited = time.perf_counter() - (pause.paused_at or 0.0)
    join_abandoned_writes()
    assert waited < WRITE_TIMEOUT + SLACK, name


class PausingEmbedder(FakeEmbedder):
    """Pauses the server as its ``pause_at``-th embedding starts."""

    def __init__(self, pause: ServerPause, pause_at: int) -> None:
        super().__init__(dim=8)
        self.pause, self.pause_at = pause, pause_at

    def embed(self, texts: object, progress: bool = False) -> object:
        if self.calls + 1 == self.pause_at:
            self.pause.pause()
        return super().embed(texts, progress=progress)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pause_at", "expected"),
    [
        (1, r"read of vectors .* no answer within 2 s \(query_timeout\)"),  # before any read
        (2, r"write of vectors .* no answer within 2 s \(write_timeout\)"),  # before the write
    ],
    ids=["read", "write"],
)
def test_kgqa_load_embed_ends_in_graph_store_error_on_a_paused_server(
    bolt_server: BoltServer, make_store: MakeStore, pause_at: int, expected: str
) -> None:
    store = make_store(write_timeout=WRITE_TIMEOUT, query_timeout=WRITE_TIMEOUT)
    write_triples_to_neo4j(store, TRIPLES[:5], progress=False)
    with pausable(bolt_server) as pause:
        with pytest.raises(GraphStoreError, match=expected):
            write_embeddings(store, PausingEmbedder(pause, pause_at), progress=False)
        waited = time.perf_counter() - (pause.paused_at or 0.0)
    join_abandoned_writes()
    assert waited < WRITE_TIMEOUT + SLACK


@pytest.mark.parametrize("create_schema", [True, False])
def test_dead_server_gives_graph_store_error_not_a_driver_exception(
    bolt_server: BoltServer, make_store: MakeStore, create_schema: bool
) -> None:
    target = urlsplit(bolt_server.uri)
    proxy = StallingProxy(target.hostname or "127.0.0.1", target.port or 7687)
    store = make_store(write_timeout=WRITE_TIMEOUT)  # deletes the label's data afterwards
    proxied = Neo4jGraphStore(
        f"{target.scheme}://127.0.0.1:{proxy.port}",
        bolt_server.username,
        bolt_server.password,
        bolt_server.database,
        mapping=store.mapping,
        write_timeout=WRITE_TIMEOUT,
    )
    try:
        proxy.kill()
        started = time.perf_counter()
        with pytest.raises(GraphStoreError, match=r"loading into Neo4j at bolt://") as caught:
            write_triples_to_neo4j(proxied, TRIPLES, progress=False, create_schema=create_schema)
        assert time.perf_counter() - started < WRITE_TIMEOUT + SLACK
        assert "No triples were written" in str(caught.value)
    finally:
        proxy.kill()
        proxied.close()


def test_a_statement_the_server_refuses_is_not_taken_for_a_failure(
    bolt_server: BoltServer, make_store: MakeStore
) -> None:
    """ensure_schema still falls back from a refused constraint; create_indexes still says how
    ArcadeDB creates indexes (the refusals travel as GraphStoreError from store.write)."""
    store = make_store(mapping=fresh_mapping(), write_timeout=WRITE_TIMEOUT)
    schema = ensure_schema(store)
    assert schema and schema[-1].startswith(("constraint kg_", "index kg_"))
    if not bolt_server.is_arcadedb:
        pytest.skip("Neo4j 5 creates the full-text index")
    with pytest.raises(GraphStoreError, match="ArcadeDB creates indexes with its SQL only"):
        create_indexes(store)
