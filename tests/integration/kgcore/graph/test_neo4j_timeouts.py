"""A stalled, killed or unknown Bolt server ends a call with GraphStoreError within the bound."""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest

from kgcore.exceptions import GraphStoreError, InvalidSettingError
from kgcore.graph.neo4j_loader import write_triples_to_neo4j
from kgcore.graph.neo4j_store import Neo4jGraphStore
from tests.support.neo4j_testserver import BoltServer, fresh_mapping
from tests.support.tcp_proxy import StallingProxy

MakeStore = Callable[..., Neo4jGraphStore]
TRIPLES = [("Giant", "directed_by", "George Stevens"), ("Shane", "directed_by", "George Stevens")]


def proxied_store(bolt_server: BoltServer, proxy: StallingProxy, **kwargs: object):
    host = urlsplit(bolt_server.uri)
    uri = f"{host.scheme}://127.0.0.1:{proxy.port}"
    return Neo4jGraphStore(
        uri,
        bolt_server.username,
        bolt_server.password,
        bolt_server.database,
        mapping=kwargs.pop("mapping"),  # type: ignore[arg-type]
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def loaded(make_store: MakeStore):
    store = make_store()
    write_triples_to_neo4j(store, TRIPLES, progress=False)
    return store


def test_stalled_server_gives_graph_store_error_within_query_timeout(
    bolt_server: BoltServer, loaded: Neo4jGraphStore
) -> None:
    target = urlsplit(bolt_server.uri)
    proxy = StallingProxy(target.hostname or "127.0.0.1", target.port or 7687)
    store = proxied_store(
        bolt_server, proxy, mapping=loaded.mapping, query_timeout=2.0, neighbor_cache_triples=0
    )  # every read asks the server: none is answered from the neighbour cache
    try:
        assert [t.head for t in store.neighbors("George Stevens")] == ["Giant", "Shane"]
        proxy.stall()
        started = time.perf_counter()
        with pytest.raises(GraphStoreError, match=r"no answer within 2 s"):
            store.neighbors("George Stevens")
        assert time.perf_counter() - started < 3.0
        proxy.resume()
        # a fresh driver: the next call does not queue behind the stalled connection
        assert store.has_node("Giant")
    finally:
        proxy.kill()
        store.close()


def test_killed_server_gives_graph_store_error_within_query_timeout(
    bolt_server: BoltServer, loaded: Neo4jGraphStore
) -> None:
    target = urlsplit(bolt_server.uri)
    proxy = StallingProxy(target.hostname or "127.0.0.1", target.port or 7687)
    store = proxied_store(bolt_server, proxy, mapping=loaded.mapping, query_timeout=3.0)
    try:
        assert store.has_node("Shane")
        proxy.kill()
        for _ in range(2):
            started = time.perf_counter()
            with pytest.raises(GraphStoreError):
                store.neighbors("George Stevens")
            assert time.perf_counter() - started < 4.0
    finally:
        proxy.kill()
        store.close()


def test_negative_limit_refused_like_the_memory_store(loaded: Neo4jGraphStore) -> None:
    with pytest.raises(InvalidSettingError, match="got -1"):
        loaded.neighbors("Giant", limit=-1)


def test_bad_line_writes_nothing(make_store: MakeStore, tmp_path) -> None:
    from kgcore.exceptions import GraphLoadError

    path = tmp_path / "kb.txt"
    lines = [f"film {i}|directed_by|person {i % 7}" for i in range(30)] + ["broken line"]
    path.write_text("\n".join(lines) + "\n")
    store = make_store(mapping=fresh_mapping())
    with pytest.raises(GraphLoadError, match=r"kb.txt:31: malformed"):
        write_triples_to_neo4j(store, path, batch_size=10, progress=False)
    assert store.num_triples() == 0
