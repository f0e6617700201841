"""Start an ArcadeDB server with its Bolt plugin for the benchmarks (``arcadedb-embedded``).

A thin layer over :mod:`tests.support.arcadedb_server`, the launcher the test fixture uses too:
the server listens on 127.0.0.1 only, on free ports, with a fresh root password, in ``root`` (a
temporary folder, or a kept one whose database a later run resumes), and never outlives the
benchmark (it is stopped at exit and killed if the benchmark is). Its HTTP API runs SQL, which
is how ArcadeDB creates full-text and vector indexes (:func:`sql`).

Example
-------
>>> server = start(Path("benchmarks/out/db"), heap="2g")  # doctest: +SKIP
>>> server.uri  # doctest: +SKIP
'bolt://127.0.0.1:40123'
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the repository, for tests.support

from tests.support.arcadedb_server import (  # noqa: E402
    DATABASE,
    READY_MARKER,
    ArcadeDBServer,
    ArcadeDBStartError,
    start_arcadedb_server,
)

__all__ = ["DATABASE", "READY", "Server", "sql", "start"]

READY = READY_MARKER
#: A running ArcadeDB: ``uri``, ``conn`` (the store's arguments), ``http_port``, ``stop()``.
Server = ArcadeDBServer


def start(root: Path, heap: str = "2g", timeout: float = 300.0) -> Server:
    """Start ArcadeDB in ``root`` (its database is kept there between runs).

    Exits the benchmark (``SystemExit`` with the end of the server's log) if it does not start.
    """
    try:
        return start_arcadedb_server(root, heap=heap, initial_heap="512m", timeout=timeout)
    except ArcadeDBStartError as err:
        raise SystemExit(str(err)) from err


def sql(server: Server, command: str) -> dict[str, Any]:
    """Run one SQL command on the server's database (over its HTTP API)."""
    return server.sql(command, timeout=3600.0)
