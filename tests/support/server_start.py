"""Wait for a server process to start as long as it is making progress, and say why when
giving up: the one wait of the test servers (:mod:`tests.support.arcadedb_server`).

A fixed start timeout ran out on a busy machine (a test run beside a benchmark) while the
server was still starting, slowly. Here a start is given up only when the process exited,
when it made no progress for ``stall`` seconds (its log did not grow and it used no CPU time),
or at ``cap`` seconds, a generous limit set by ``$KG_SERVER_START_TIMEOUT`` (900 s by
default). The message of a start that failed names the reason, the machine's load and the
last lines of the server's log.

Example
-------
>>> start_cap({"KG_SERVER_START_TIMEOUT": "1200"})
1200.0
>>> start_cap({})
900.0
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_START_CAP_S",
    "DEFAULT_STALL_S",
    "START_CAP_ENV",
    "StartOutcome",
    "cpu_seconds",
    "last_lines",
    "start_cap",
    "wait_for_start",
]

#: The environment variable setting the longest wait for a test server's start, in seconds.
START_CAP_ENV = "KG_SERVER_START_TIMEOUT"
DEFAULT_START_CAP_S = 900.0
#: Seconds without progress (log unchanged, no CPU time used) after which a start is given up.
DEFAULT_STALL_S = 180.0
#: Log lines quoted in the message of a start given up.
LOG_LINES = 40


def start_cap(environ: Mapping[str, str] | None = None) -> float:
    """The longest wait for a server's start: ``$KG_SERVER_START_TIMEOUT`` seconds, else 900.

    Raises
    ------
    ValueError
        When the variable is not a positive number (named in the message).
    """
    text = (os.environ if environ is None else environ).get(START_CAP_ENV, "").strip()
    if not text:
        return DEFAULT_START_CAP_S
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:  # NaN too
        raise ValueError(f"{START_CAP_ENV} must be a number of seconds > 0, got {text!r}")
    return value


def cpu_seconds(pid: int) -> float | None:
    """The CPU time ``pid`` has used (user and system, all its threads), from Linux's
    ``/proc``; ``None`` where that is not readable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    try:  # utime and stime: fields 14 and 15 of stat, 12 and 13 after the name
        ticks = int(fields[11]) + int(fields[12])
    except (IndexError, ValueError):
        return None
    return ticks / os.sysconf("SC_CLK_TCK")


def last_lines(text: str, count: int = LOG_LINES) -> str:
    """The last ``count`` lines of ``text`` (a log)."""
    return "\n".join(text.splitlines()[-count:])


@dataclass(frozen=True)
class StartOutcome:
    """How a wait for a start ended: ``ready``, or why not (``reason``) with the log."""

    ready: bool
    seconds: float
    log: str
    reason: str = ""
    exited: bool = False

    def explain(self, what: str) -> str:
        """A message for a start given up: what, why, the machine's load, the log's end."""
        try:
            load = "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())
        except OSError:
            load = "load average unknown"
        return (
            f"{what} did not start: {self.reason} ({self.seconds:.0f} s; {load} on "
            f"{os.cpu_count()} cores; set {START_CAP_ENV} to wait longer). Last log lines:\n"
            f"{last_lines(self.log) or '(the log is empty)'}"
        )


def wait_for_start(
    process: subprocess.Popen[bytes],
    log_path: Path,
    ready: Callable[[str], bool],
    *,
    cap: float,
    stall: float = DEFAULT_STALL_S,
    poll: float = 0.1,
) -> StartOutcome:
    """Wait until ``ready(log text)``, as long as ``process`` runs and makes progress.

    Parameters
    ----------
    process : subprocess.Popen
        The server's process.
    log_path : Path
        Its log (stdout and stderr).
    ready : callable
        Whether the log says the server is ready.
    cap : float
        The longest wait in seconds, progress or not.
    stall : float
        Seconds without progress (the log did not grow, no CPU time used) after which the
        start is given up.
    poll : float
        Seconds between looks.

    Returns
    -------
    StartOutcome
        ``ready`` True, or the reason it is not (the process exited, stalled, or the cap).
    """
    started = last_progress = time.monotonic()
    size, cpu = -1, cpu_seconds(process.pid)
    text = ""
    while True:
        now = time.monotonic()
        try:
            current = log_path.stat().st_size
        except OSError:
            current = 0
        if current != size:
            size, last_progress = current, now
            text = log_path.read_text(errors="replace") if current else ""
            if ready(text):
                return StartOutcome(True, now - started, text)
        used = cpu_seconds(process.pid)
        if used is not None and cpu is not None and used > cpu:
            last_progress = now
        cpu = used if used is not None else cpu
        code = process.poll()
        if code is not None:
            text = log_path.read_text(errors="replace") if log_path.exists() else text
            if ready(text):
                return StartOutcome(True, now - started, text)
            reason = f"the process exited with code {code}"
            return StartOutcome(False, now - started, text, reason, exited=True)
        if now - last_progress > stall:
            reason = f"no progress for {stall:.0f} s (its log did not grow, it used no CPU time)"
            return StartOutcome(False, now - started, text, reason)
        if now - started > cap:
            reason = f"still starting after {cap:.0f} s, the cap"
            return StartOutcome(False, now - started, text, reason)
        time.sleep(poll)
