"""A Bolt test server that does not start is one error saying why, not one per test: the run
below gives ArcadeDB a start cap it cannot meet (``KG_SERVER_START_TIMEOUT``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.paths import REPO
from tests.support.server_start import START_CAP_ENV

pytest.importorskip("arcadedb_embedded", reason="the ArcadeDB wheel is in the dev extra")
pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")

CONFTEST = """
from tests.integration.conftest import bolt_server, pytest_runtest_makereport  # noqa: F401
"""

TESTS = """
def test_one(bolt_server):
    pass

def test_two(bolt_server):
    pass

def test_three(bolt_server):
    pass

def test_without_a_server():
    pass
"""


def test_a_server_that_does_not_start_fails_one_test_and_skips_the_others(
    tmp_path: Path,
) -> None:
    (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST))
    (tmp_path / "test_needs_server.py").write_text(textwrap.dedent(TESTS))
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("NEO4J_")  # the fixture must start its own server
    }
    env.update({"PYTHONPATH": str(REPO), START_CAP_ENV: "0.01"})
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = run.stdout
    assert run.returncode == 1, out
    assert "1 passed, 2 skipped, 1 error" in out, out
    # The error says why, with the machine's load and the variable that waits longer.
    assert "ArcadeDB in" in out and "did not start: still starting after" in out, out
    assert "load average" in out and START_CAP_ENV in out, out
    # The skipped tests name the test that holds the error.
    assert out.count("the test server did not start (the error of") == 2, out
    assert "test_needs_server.py::test_one" in out, out
