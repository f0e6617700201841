"""The test servers' start wait: as long as the process makes progress, and a reason when not."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.server_start import START_CAP_ENV, start_cap, wait_for_start

READY = "server started"
Launch = Callable[[str], tuple[subprocess.Popen[bytes], Path]]


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Launch]:
    """Start ``python -c code`` with its output in a log, as the launcher starts a server."""
    started: list[subprocess.Popen[bytes]] = []
    log_path = tmp_path / "server.log"

    def run(code: str) -> tuple[subprocess.Popen[bytes], Path]:
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-u", "-c", textwrap.dedent(code)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        started.append(process)
        return process, log_path

    yield run
    for process in started:
        process.kill()
        process.wait()


def _ready(text: str) -> bool:
    return READY in text


def test_a_slow_start_that_keeps_logging_is_waited_for_past_the_stall_window(
    launch: Launch,
) -> None:
    # 2.5 s to start, a log line every 0.3 s: each pause is shorter than the 1 s stall window.
    process, log = launch(
        """
        import time
        for step in range(8):
            print("loading", step)
            time.sleep(0.3)
        print("server started")
        time.sleep(60)
        """
    )
    outcome = wait_for_start(process, log, _ready, cap=60, stall=1.0)
    assert outcome.ready, outcome.reason
    assert outcome.seconds >= 2.0


def test_a_start_that_uses_cpu_without_logging_is_not_a_stall(launch: Launch) -> None:
    process, log = launch(
        """
        import time
        end = time.monotonic() + 2.5
        while time.monotonic() < end:
            sum(range(10000))
        print("server started")
        time.sleep(60)
        """
    )
    outcome = wait_for_start(process, log, _ready, cap=60, stall=1.0)
    assert outcome.ready, outcome.reason


def test_a_process_that_exits_is_reported_with_its_code_and_log(launch: Launch) -> None:
    process, log = launch(
        """
        import sys
        print("Address already in use: 7687")
        sys.exit(3)
        """
    )
    outcome = wait_for_start(process, log, _ready, cap=60, stall=10)
    assert not outcome.ready and outcome.exited
    message = outcome.explain("ArcadeDB in /tmp/x")
    assert "exited with code 3" in message
    assert message.splitlines()[-1] == "Address already in use: 7687"
    assert START_CAP_ENV in message


def test_a_silent_idle_process_is_given_up_after_the_stall_window(launch: Launch) -> None:
    process, log = launch("import time; print('starting'); time.sleep(60)")
    outcome = wait_for_start(process, log, _ready, cap=60, stall=1.0)
    assert not outcome.ready and not outcome.exited
    assert "no progress for 1 s" in outcome.reason
    assert outcome.seconds < 10
    assert "starting" in outcome.explain("server")


def test_the_cap_ends_a_start_that_never_finishes(launch: Launch) -> None:
    process, log = launch(
        """
        import time
        while True:
            print("still loading")
            time.sleep(0.1)
        """
    )
    outcome = wait_for_start(process, log, _ready, cap=1.5, stall=10)
    assert not outcome.ready
    assert "still starting after 2 s, the cap" in outcome.reason
    assert "still loading" in outcome.explain("server")


@pytest.mark.parametrize("value", ["0", "-5", "soon", "nan"])
def test_a_bad_start_cap_is_refused_naming_the_variable(value: str) -> None:
    with pytest.raises(ValueError, match=START_CAP_ENV):
        start_cap({START_CAP_ENV: value})
