"""Several ArcadeDB members with the Bolt plugin on 127.0.0.1, for the cluster tests.

Two kinds, both read by the store's member list (:mod:`kgcore.graph.failover`):

* an HA cluster (``ha=True``): ArcadeDB's Raft replication (the ``arcadedb.ha.*`` settings:
  each member has a name, a Raft port and the list of all members, ``name@host:raft:http:
  priority``; the first member has the highest priority, so it is the preferred leader). It
  needs ArcadeDB's HA module (``arcadedb-ha-raft`` and Apache Ratis), which the
  ``arcadedb-embedded`` wheel does not bundle: such a server logs that no HA plugin was found
  and runs standalone. ``$KG_ARCADEDB_HA_CLASSPATH`` names the jars of a distribution that has
  the module (jar files, folders of jars, or ``folder/*``, separated by ``os.pathsep``);
  :func:`ha_unavailable` says why a cluster cannot start here.
* read replicas (``ha=False``): independent servers, each loaded with the same graph (what a
  replica set kept in step by its loader looks like to a reader).

Every member shares one root password, and every Java process dies with the test run
(:mod:`tests.support.arcadedb_server`).

Example
-------
>>> cluster = start_arcadedb_cluster(Path("/tmp/c"), ha=False)  # doctest: +SKIP
>>> cluster.spec  # doctest: +SKIP
'bolt://127.0.0.1:40001,bolt://127.0.0.1:40004,bolt://127.0.0.1:40007'
>>> cluster.kill(0); cluster.stop()  # doctest: +SKIP
"""

from __future__ import annotations

import os
import secrets
import signal
from dataclasses import dataclass
from pathlib import Path

from tests.support.arcadedb_server import (
    DATABASE,
    ArcadeDBServer,
    ArcadeDBStartError,
    arcadedb_home,
    free_port,
    launch_arcadedb_server,
    wait_until_ready,
)
from tests.support.server_start import DEFAULT_STALL_S

__all__ = [
    "HA_CLASSPATH_ENV",
    "NO_HA_MARKER",
    "ArcadeDBCluster",
    "ha_classpath",
    "ha_unavailable",
    "start_arcadedb_cluster",
]

#: Where the jars of ArcadeDB's HA module are (``os.pathsep``-separated jars or folders).
HA_CLASSPATH_ENV = "KG_ARCADEDB_HA_CLASSPATH"
#: What an ArcadeDB server without the HA module logs when HA was asked for.
NO_HA_MARKER = "no HA plugin was found on the classpath"


@dataclass
class ArcadeDBCluster:
    """Running members (in the order a member list names them) and their shared login."""

    members: list[ArcadeDBServer]
    ha: bool

    @property
    def uris(self) -> list[str]:
        """Each member's Bolt URI."""
        return [member.uri for member in self.members]

    @property
    def spec(self) -> str:
        """The ``--kg`` spec of the member list: the Bolt URIs, comma-separated."""
        return ",".join(self.uris)

    @property
    def routing_uri(self) -> str:
        """A ``neo4j://`` URI on the first member (the driver routes writes to the leader)."""
        return self.members[0].uri.replace("bolt://", "neo4j://", 1)

    @property
    def login(self) -> dict[str, str]:
        """``username``, ``password`` and ``database`` for a store."""
        first = self.members[0]
        return {"username": first.username, "password": first.password, "database": DATABASE}

    def kill(self, index: int) -> None:
        """SIGKILL member ``index`` (no shutdown: as a crash) and reap it."""
        process = self.members[index].process
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    def stop(self) -> None:
        """Stop every member still running."""
        for member in self.members:
            member.stop(timeout=10)


def _jars(entry: str) -> list[Path]:
    """The jars a class path entry names (a jar, a folder of jars, or ``folder/*``)."""
    path = Path(entry.removesuffix("*"))
    if path.is_dir():
        return sorted(path.glob("*.jar"))
    return [path] if path.suffix == ".jar" and path.exists() else []


def ha_classpath() -> tuple[Path, ...]:
    """The class path entries of ``$KG_ARCADEDB_HA_CLASSPATH`` (empty when unset)."""
    text = os.environ.get(HA_CLASSPATH_ENV, "")
    return tuple(Path(entry) for entry in text.split(os.pathsep) if entry.strip())


def ha_unavailable(classpath: tuple[Path, ...] = ()) -> str | None:
    """Why an ArcadeDB HA cluster cannot start here, or ``None`` when it can.

    It can when a jar of ArcadeDB's HA module (``arcadedb-ha-*.jar``) is in the wheel or on
    ``classpath``.
    """
    try:
        jars = _jars(str(arcadedb_home() / "jars"))
    except ImportError:
        return "arcadedb-embedded (dev extra) is not installed"
    for entry in classpath:
        jars += _jars(str(entry))
    if any(jar.name.startswith("arcadedb-ha") for jar in jars):
        return None
    return (
        "ArcadeDB's HA module (arcadedb-ha-raft, with Apache Ratis) is not in the "
        "arcadedb-embedded wheel, whose servers run standalone when HA is asked for; set "
        f"{HA_CLASSPATH_ENV} to the jars of an ArcadeDB distribution that has it"
    )


def start_arcadedb_cluster(
    root: Path,
    size: int = 3,
    *,
    ha: bool,
    heap: str = "512m",
    cap: float | None = None,
    stall: float = DEFAULT_STALL_S,
) -> ArcadeDBCluster:
    """Start ``size`` members in ``root/member<i>`` and wait until each has started.

    All members are launched first, then waited for (an HA member may wait for its peers).

    Raises
    ------
    ArcadeDBStartError
        When a member did not start (the message says why, with its log's end), or, for
        ``ha``, when a member runs without the HA module; every member is stopped then.
    """
    classpath = ha_classpath() if ha else ()
    password = "kg-" + secrets.token_hex(8)
    ports = [(free_port(), free_port(), free_port(), free_port()) for _ in range(size)]
    names = [f"kg{i + 1}" for i in range(size)]
    server_list = ",".join(
        f"{name}@127.0.0.1:{raft}:{http}:{size - i}"
        for i, (name, (_, http, _, raft)) in enumerate(zip(names, ports, strict=True))
    )
    cluster_name = "kg-test-" + secrets.token_hex(4)
    token = secrets.token_hex(16)
    members: list[ArcadeDBServer] = []
    try:
        for i, (bolt, http, https, raft) in enumerate(ports):
            settings: dict[str, object] = {
                "arcadedb.server.mode": "development",
                "arcadedb.server.name": names[i],
            }
            if ha:
                settings.update(
                    {
                        "arcadedb.ha.enabled": "true",
                        "arcadedb.ha.clusterName": cluster_name,
                        "arcadedb.ha.serverList": server_list,
                        "arcadedb.ha.raftPort": raft,
                        "arcadedb.ha.clusterToken": token,
                    }
                )
            members.append(
                launch_arcadedb_server(
                    root / f"member{i + 1}",
                    heap=heap,
                    initial_heap="128m",
                    jvm_options=("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                    settings=settings,
                    classpath=classpath,
                    password=password,
                    ports=(bolt, http, https),
                )
            )
        for member in members:
            outcome = wait_until_ready(member, cap=cap, stall=stall)
            if not outcome.ready:
                raise ArcadeDBStartError(outcome.explain(f"cluster member {member.root.name}"))
            if ha and NO_HA_MARKER in outcome.log:
                raise ArcadeDBStartError(
                    f"cluster member {member.root.name} runs standalone: {NO_HA_MARKER}"
                )
    except BaseException:
        for member in members:
            member.stop(timeout=5)
        raise
    return ArcadeDBCluster(members, ha)
