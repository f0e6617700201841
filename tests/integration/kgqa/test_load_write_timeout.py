"""``kgqa load`` on a Bolt server paused mid-load: exit 2 with the resume hint within
``--write-timeout``, and the process ends (no write left holding it); a rerun resumes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from kgcore.graph.open import open_store
from kgqa.cli import main
from tests.support.neo4j_testserver import BoltServer, delete_label, pausable
from tests.support.paths import REPO

WRITE_TIMEOUT = 2.0
#: The CLI runs in a child process which pauses the server (SIGSTOP) just before its
#: ``PAUSE_BEFORE``-th write: the schema is write 1, so two batches are written first.
PAUSE_BEFORE = 4
CHILD = textwrap.dedent(
    """
    import os, sys, time
    from kgcore.graph.neo4j_store import Neo4jGraphStore
    from kgqa.cli import main
    from tests.support.neo4j_testserver import ServerPause

    real_write, calls = Neo4jGraphStore.write, [0]

    def write(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == int(os.environ["PAUSE_BEFORE"]):
            ServerPause(int(os.environ["SERVER_PID"])).pause()  # returns once it is stopped
            sys.stderr.write(f"paused-at {time.time()}\\n"); sys.stderr.flush()
        return real_write(self, *args, **kwargs)

    Neo4jGraphStore.write = write
    status = main(sys.argv[1:])
    sys.stderr.write(f"returned-at {time.time()}\\n"); sys.stderr.flush()
    sys.exit(status)
    """
)


def _stamp(stderr: str, name: str) -> float:
    # The driver's retry warnings come from another thread and may run into a stamp's line
    # ("returned-at 1795694475.88Transaction failed and will be retried ..."): read the number.
    for line in stderr.splitlines():
        found = re.match(rf"{name} (\d+(?:\.\d+)?)", line)
        if found:
            return float(found.group(1))
    raise AssertionError(f"no {name} line in:\n{stderr}")


def test_kgqa_load_on_a_paused_server_exits_2_with_the_resume_hint_within_write_timeout(
    bolt_server: BoltServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text("".join(f"film {i}|directed_by|person {i % 7}\n" for i in range(50)))
    spec = f"{bolt_server.uri}?label=T{uuid.uuid4().hex[:12]}"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "NEO4J_USERNAME": bolt_server.username,
        "NEO4J_PASSWORD": bolt_server.password,
        "NEO4J_DATABASE": bolt_server.database or "",
        "PAUSE_BEFORE": str(PAUSE_BEFORE),
        "SERVER_PID": str(bolt_server.pid or 0),
    }
    command = [sys.executable, "-c", CHILD, "load", str(kb), "--kg", spec, "--quiet"]
    command += ["--batch-size", "10", "--write-timeout", f"{WRITE_TIMEOUT:g}"]
    with pausable(bolt_server):  # continues the server the child paused, whatever happens
        child = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        exited = time.time()
    paused, returned = _stamp(child.stderr, "paused-at"), _stamp(child.stderr, "returned-at")
    assert child.returncode == 2, child.stderr
    assert "Traceback" not in child.stderr
    assert "kgqa: error: loading into Neo4j at bolt://" in child.stderr
    assert f"no answer within {WRITE_TIMEOUT:g} s (write_timeout)" in child.stderr
    assert "20 triples (2 batches) were written before the failure" in child.stderr
    assert "run the same load again to resume" in child.stderr
    assert returned - paused < WRITE_TIMEOUT + 1.0  # the error, within the write timeout
    assert exited - returned < 10.0  # and the process ends: no abandoned write holds it

    # The same command again, on the continued server, resumes the load.
    monkeypatch.setenv("NEO4J_USERNAME", bolt_server.username)
    monkeypatch.setenv("NEO4J_PASSWORD", bolt_server.password)
    if bolt_server.database:
        monkeypatch.setenv("NEO4J_DATABASE", bolt_server.database)
    assert main(["load", str(kb), "--kg", spec, "--quiet", "--batch-size", "10"]) == 0
    assert "read 50 triples" in capsys.readouterr().out
    store = open_store(spec)
    try:
        assert store.num_triples() == 50
    finally:
        delete_label(store, drop_schema=not bolt_server.is_arcadedb)
        store.close()


@pytest.mark.parametrize("value", ["0", "-1", "nan", "3601", "soon"])
def test_kgqa_load_refuses_a_bad_write_timeout(value: str, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["load", "kb.txt", "--kg", "bolt://127.0.0.1:1", "--write-timeout", value])
    assert caught.value.code == 2
    assert "--write-timeout: must be in (0, 3600] seconds" in capsys.readouterr().err
