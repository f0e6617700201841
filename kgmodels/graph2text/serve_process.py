"""Start the Graph2Text server (``python -m kgmodels.graph2text.serve``, what ``kgqa g2t
serve`` runs) as a child process on a free loopback port, and stop it cleanly.

Used by the tests and ``benchmarks/g2t_serve.py``: :func:`serving` yields the base URL once
``/healthz`` answers, and on exit sends SIGTERM and waits for the server and its workers.

Example
-------
>>> with serving("models/graph2text-webnlg-small", token="t") as url:   # doctest: +SKIP
...     print(url)
http://127.0.0.1:41234
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from kgcore.exceptions import ConfigurationError


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(
    model: str | Path,
    *,
    token: str | None = None,
    extra_args: Sequence[str] = (),
    startup_timeout: float = 180.0,
    log_path: str | Path | None = None,
) -> Iterator[str]:
    """Run the server while the ``with`` block runs; yields ``http://127.0.0.1:PORT``."""
    import httpx

    port = free_port()
    server = "kgmodels.graph2text.serve"
    command = [sys.executable, "-m", server, str(model), "--port", str(port)]
    command += ["--threads", "1", *extra_args] + (["--token", token] if token else [])
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.getcwd()}
    log = open(log_path or os.devnull, "wb")  # noqa: SIM115 - closed in finally
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            if process.poll() is not None:
                raise ConfigurationError(f"the Graph2Text server exited ({process.returncode})")
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise ConfigurationError("the Graph2Text server did not start in time")
            time.sleep(0.5)
        yield url
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()
