"""The LitServe server: open health, token, input limits, dynamic batching, clean shutdown."""

from __future__ import annotations

import signal
from concurrent.futures import ThreadPoolExecutor

import httpx
import psutil
import pytest

from kgcore.text.graph2text.guard import GuardedTextualizer
from kgcore.text.graph2text.remote import Graph2TextServerError, RemoteGraph2Text
from kgcore.text.graph2text.serve_process import serving
from kgcore.types import Triple

TRIPLE = ["Alan Bean", "occupation", "Test pilot"]


@pytest.fixture(scope="module")
def server(tiny_model):
    with serving(tiny_model, token="s3cret", extra_args=["--batch-timeout", "0.3"]) as url:
        yield url


def test_health_is_open_and_everything_else_needs_the_token(server):
    assert httpx.get(f"{server}/healthz").json() == {"ready": True}
    assert httpx.post(f"{server}/predict", json={"triples": [TRIPLE]}).status_code == 401
    assert httpx.get(f"{server}/health").status_code == 401
    wrong = {"Authorization": "Bearer nope"}
    assert (
        httpx.post(f"{server}/predict", json={"triples": [TRIPLE]}, headers=wrong).status_code
        == 401
    )


def test_over_limit_input_is_a_4xx_with_a_message(server):
    auth = {"Authorization": "Bearer s3cret"}
    cases = [
        ({"triples": [TRIPLE] * 33}, "32"),
        ({"triples": [["a", "b"]]}, "expected 3"),
        ({"triples": [["x" * 301, "r", "t"]]}, "300 characters"),
        ({"triples": [["x" * 290, "y" * 290, "z" * 290]] * 5}, "4000 limit"),
        ({"triples": []}, "at least 1"),
        ({"nodes": ["a"]}, "triples"),
    ]
    for body, message in cases:
        response = httpx.post(f"{server}/predict", json=body, headers=auth)
        assert response.status_code == 422, body
        assert message in response.text


def test_concurrent_requests_are_batched_and_all_answered(server):
    auth = {"Authorization": "Bearer s3cret"}

    def one(i: int) -> dict:
        body = {"triples": [[f"Person {i}", "occupation", "Test pilot"]]}
        response = httpx.post(f"{server}/predict", json=body, headers=auth, timeout=120)
        assert response.status_code == 200
        return response.json()

    with ThreadPoolExecutor(24) as pool:
        replies = list(pool.map(one, range(24)))
    assert all(isinstance(r["text"], str) and isinstance(r["guard_ok"], bool) for r in replies)
    assert max(r["batch"] for r in replies) > 1


def test_remote_client_works_behind_the_guard(server):
    with RemoteGraph2Text(server, token="s3cret") as remote:
        assert remote.health()
        guarded = GuardedTextualizer(remote.generate)
        triples = [Triple("Alan Bean", "occupation", "Test pilot")]
        texts = guarded.generate([(["Alan Bean"], triples)] * 3)
        assert len(texts) == 3 and guarded.calls == 3
    with (
        RemoteGraph2Text(server, token="wrong") as bad,
        pytest.raises(Graph2TextServerError, match="token"),
    ):
        bad.generate([[TRIPLE]])


def test_sigterm_stops_the_server_and_its_workers(tiny_model):
    with serving(tiny_model) as url:
        port = int(url.rsplit(":", 1)[1])
        mains = [
            p
            for p in psutil.process_iter(["cmdline"])
            if "kgcore.text.graph2text.serve" in (p.info["cmdline"] or [])
            and str(port) in (p.info["cmdline"] or [])
        ]
        pids = {p.pid for p in mains}
        roots = [p for p in mains if p.ppid() not in pids]  # forked API servers share argv
        assert len(roots) == 1
        parent = roots[0]
        family = [parent, *parent.children(recursive=True)]
        assert len(family) >= 2  # the server and at least one inference worker
        parent.send_signal(signal.SIGTERM)
        gone, alive = psutil.wait_procs(family, timeout=30)
        assert alive == []
