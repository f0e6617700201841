"""The fixture's ArcadeDB never outlives the test run: a run killed (SIGKILL), terminated
(SIGTERM) or interrupted (SIGINT, Ctrl-C) takes the Java server with it."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support.paths import REPO
from tests.support.server_start import start_cap

pytest.importorskip("arcadedb_embedded", reason="the ArcadeDB wheel is in the dev extra")
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the process table in /proc"
)

#: A test run in miniature: start the server the way the fixture does, then wait to be stopped.
#: Ctrl-C's handler is set explicitly: a run started in the background (``nohup ... &``) inherits
#: SIGINT ignored, and Python then installs no KeyboardInterrupt handler.
RUN = textwrap.dedent(
    """
    import signal, sys, time
    from pathlib import Path
    from tests.support.neo4j_testserver import start_arcadedb

    signal.signal(signal.SIGINT, signal.default_int_handler)

    process, server, log_path = start_arcadedb(Path(sys.argv[1]))
    print(server.pid, flush=True)
    time.sleep(600)
    """
)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody reaped has stopped running)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def _first_line(process: subprocess.Popen[str], timeout: float) -> str:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    assert ready, "the test run did not start its server in time"
    return process.stdout.readline().strip()


@pytest.mark.parametrize(
    "sig",
    [signal.SIGKILL, signal.SIGTERM, signal.SIGINT],
    ids=["killed", "terminated", "interrupted"],
)
def test_the_java_server_dies_with_the_test_run(tmp_path: Path, sig: signal.Signals) -> None:
    run = subprocess.Popen(
        [sys.executable, "-c", RUN, str(tmp_path)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # the signal reaches the run alone, not the server through it
    )
    java = 0
    try:
        java = int(_first_line(run, timeout=start_cap() + 30))  # the run's own wait, then some
        assert _alive(java)
        os.kill(run.pid, sig)
        run.wait(timeout=90)  # at exit the server has 5 s to stop, then SIGKILL; CI may be slow
        deadline = time.monotonic() + 15
        while _alive(java) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(java), f"the Java server {java} outlived a test run ended by {sig!r}"
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        if java and _alive(java):
            os.kill(java, signal.SIGKILL)  # the server this test started, left behind
