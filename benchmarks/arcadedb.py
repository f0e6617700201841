"""Start an ArcadeDB server with its Bolt plugin for the benchmarks (``arcadedb-embedded``).

The server listens on 127.0.0.1 only, on free ports, with a fresh root password, in ``root``
(a temporary folder, or a kept one whose database a later run resumes). Its HTTP API runs SQL,
which is how ArcadeDB creates full-text and vector indexes (:func:`sql`).

Example
-------
>>> server = start(Path("benchmarks/out/db"), heap="2g")  # doctest: +SKIP
>>> server.uri  # doctest: +SKIP
'bolt://127.0.0.1:40123'
"""

from __future__ import annotations

import base64
import json
import secrets
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

READY = "ArcadeDB Server started"
DATABASE = "kg"


@dataclass
class Server:
    """A running ArcadeDB: its process, Bolt URI, credentials and HTTP port."""

    process: subprocess.Popen[bytes]
    uri: str
    password: str
    http_port: int
    start_seconds: float
    username: str = "root"
    database: str = DATABASE

    @property
    def conn(self) -> dict[str, Any]:
        """Arguments of :class:`~kgcore.graph.neo4j_store.Neo4jGraphStore`."""
        return {
            "uri": self.uri,
            "username": self.username,
            "password": self.password,
            "database": self.database,
        }

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(root: Path, heap: str = "2g", timeout: float = 300.0) -> Server:
    """Start ArcadeDB in ``root`` (its database is kept there between runs)."""
    import arcadedb_embedded

    home = Path(arcadedb_embedded.__file__).parent
    java = home / "jre" / "bin" / "java"
    if not java.stat().st_mode & 0o111:
        java.chmod(java.stat().st_mode | 0o755)  # some wheel installs drop the exec bit
    root.mkdir(parents=True, exist_ok=True)
    password = "kg-" + secrets.token_hex(8)
    bolt, http, https = _free_port(), _free_port(), _free_port()
    settings = {
        "arcadedb.server.rootPath": root,
        "arcadedb.server.databaseDirectory": root / "databases",
        "arcadedb.server.rootPassword": password,
        "arcadedb.server.defaultDatabases": f"{DATABASE}[root]",
        "arcadedb.server.plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
        "arcadedb.server.httpIncomingHost": "127.0.0.1",
        "arcadedb.server.httpIncomingPort": http,
        "arcadedb.server.httpsIncomingPort": https,
        "arcadedb.bolt.host": "127.0.0.1",
        "arcadedb.bolt.port": bolt,
        "arcadedb.bolt.defaultDatabase": DATABASE,
    }
    # The root password is stored on the first start; a kept folder would refuse a new one.
    for stale in (root / "config" / "server-users.jsonl",):
        stale.unlink(missing_ok=True)
    command = [
        str(java),
        "-Xms512m",
        f"-Xmx{heap}",
        *(f"-D{k}={v}" for k, v in settings.items()),
        "-cp",
        str(home / "jars" / "*"),
        "com.arcadedb.server.ArcadeDBServer",
    ]
    log_path = root / "server.log"
    started = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=root, stdout=log, stderr=subprocess.STDOUT)
    while READY not in log_path.read_text(errors="replace"):
        if process.poll() is not None or time.perf_counter() - started > timeout:
            process.kill()
            raise SystemExit("ArcadeDB did not start:\n" + log_path.read_text()[-3000:])
        time.sleep(0.2)
    return Server(
        process, f"bolt://127.0.0.1:{bolt}", password, http, time.perf_counter() - started
    )


def sql(server: Server, command: str) -> dict[str, Any]:
    """Run one SQL command on the server's database (over its HTTP API)."""
    auth = base64.b64encode(f"{server.username}:{server.password}".encode()).decode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.http_port}/api/v1/command/{server.database}",
        data=json.dumps({"language": "sql", "command": command}).encode(),
        headers={"Authorization": f"Basic {auth}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=3600) as response:
        answer: dict[str, Any] = json.loads(response.read().decode())
    return answer
