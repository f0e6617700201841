"""The LitServe server: open health, token, input limits, dynamic batching, clean shutdown,
and slow clients closed at the read deadline."""

from __future__ import annotations

import json
import selectors
import signal
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psutil
import pytest

from kgcore.text.graph2text.guard import GuardedTextualizer
from kgcore.text.graph2text.remote import Graph2TextServerError, RemoteGraph2Text
from kgcore.types import Triple
from kgmodels.graph2text.serve_limits import MAX_BODY_BYTES
from kgmodels.graph2text.serve_process import serving

TRIPLE = ["Alan Bean", "occupation", "Test pilot"]
AUTH = {"Authorization": "Bearer s3cret"}


@pytest.fixture(scope="module")
def server(tiny_model):
    with serving(tiny_model, token="s3cret", extra_args=["--batch-timeout", "0.3"]) as url:
        yield url


def test_health_is_open_and_everything_else_needs_the_token(server, tiny_model):
    assert httpx.get(f"{server}/healthz").json() == {"ready": True, "model": str(tiny_model)}
    assert httpx.post(f"{server}/predict", json={"triples": [TRIPLE]}).status_code == 401
    assert httpx.get(f"{server}/health").status_code == 401
    wrong = {"Authorization": "Bearer nope"}
    assert (
        httpx.post(f"{server}/predict", json={"triples": [TRIPLE]}, headers=wrong).status_code
        == 401
    )


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_the_scheme_is_read_in_any_case(server, scheme):
    headers = {"Authorization": f"{scheme} s3cret"}
    assert httpx.post(f"{server}/predict", json={"triples": [TRIPLE]}, headers=headers).is_success


@pytest.mark.parametrize("value", ["Basic s3cret", "s3cret", "Bearer", "Bearer s3cret2", ""])
def test_another_scheme_or_token_is_refused(server, value):
    headers = {"Authorization": value}
    response = httpx.post(f"{server}/predict", json={"triples": [TRIPLE]}, headers=headers)
    assert response.status_code == 401


def test_empty_parts_are_refused_naming_the_part(server):
    cases = [
        ([["", "", ""]], "triple 0 part 0 is empty"),
        ([TRIPLE, ["Alan Bean", " ", "Test pilot"]], "triple 1 part 1 is empty"),
        ([["Alan Bean", "occupation", "\t"]], "triple 0 part 2 is empty"),
    ]
    for triples, message in cases:
        response = httpx.post(f"{server}/predict", json={"triples": triples}, headers=AUTH)
        assert response.status_code == 422, triples
        assert message in response.text


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


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (r'{"triples": [["\ud800", "occupation", "Test pilot"]]}', "part 0 holds a lone surrogate"),
        (r'{"triples": [["Alan Bean", "\udc00", "Test pilot"]]}', "part 1 holds a lone surrogate"),
        (r'{"triples": [["Alan Bean", "occupation", "x\ud83d"]]}', "part 2 holds a lone surrogate"),
        (r'{"triples": [["\ud800", "r"]]}', "expected 3"),  # echoing it back was a 500
        (r'{"triples": [["Alan\u0000Bean", "r", "t"]]}', "a control character (U+0000)"),
        (r'{"triples": [["\u001b[31mAlan", "r", "t"]]}', "a control character (U+001B)"),
        (r'{"triples": [["Alan\u0085Bean", "r", "t"]]}', "a control character (U+0085)"),
        ('{"triples": [["Alan", "r", "t"]', "JSON decode error"),
        ("[" * 20_000 + "]" * 20_000, "error parsing the body"),
    ],
)
def test_bad_text_is_a_4xx_and_keeps_the_connection(server, body, message):
    with httpx.Client(headers=AUTH, timeout=60) as client:
        response = client.post(
            f"{server}/predict", content=body, headers={"content-type": "application/json"}
        )
        assert response.status_code in (400, 422), response.text
        assert message in response.text
        again = client.post(f"{server}/predict", json={"triples": [TRIPLE]})  # same connection
        assert again.status_code == 200


def raw_request(url: str, head: str, body: bytes = b"") -> bytes:
    """Send ``head`` (and ``body``) on a fresh socket; the status line of the answer."""
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.encode() + b"\r\n\r\n" + body)
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0]


def padded(size: int) -> bytes:
    """A valid request of exactly ``size`` bytes (JSON padded with spaces)."""
    body = json.dumps({"triples": [TRIPLE]}).encode()
    return body[:-1] + b" " * (size - len(body)) + b"}"


@pytest.mark.parametrize(("size", "status"), [(MAX_BODY_BYTES, 200), (MAX_BODY_BYTES + 1, 413)])
def test_body_size_limit(server, size, status):
    response = httpx.post(
        f"{server}/predict",
        content=padded(size),
        headers={**AUTH, "content-type": "application/json"},
        timeout=60,
    )
    assert response.status_code == status
    if status == 413:
        assert response.json() == {"detail": f"request body over the {MAX_BODY_BYTES}-byte limit"}


POST = "POST /predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"


@pytest.mark.parametrize(
    ("head", "body"),
    [
        # 100 MB announced and never sent: refused on the header, nothing read
        (POST + "Content-Type: application/json\r\nContent-Length: 104857600", b""),
        # streamed in 1 KiB chunks with no length: refused once the count passes the limit
        (
            POST + "Content-Type: application/json\r\nTransfer-Encoding: chunked",
            b"".join(b"400\r\n" + b"a" * 1024 + b"\r\n" for _ in range(70)),
        ),
    ],
)
def test_big_bodies_are_refused_with_413(server, head, body):
    assert raw_request(server, head, body) == b"HTTP/1.1 413 Request Entity Too Large"


ANONYMOUS = "POST /predict HTTP/1.1\r\nHost: x\r\n"


@pytest.mark.parametrize(
    ("head", "body"),
    [
        (ANONYMOUS + "Content-Type: application/json\r\nContent-Length: 104857600", b""),
        (
            ANONYMOUS + "Content-Type: application/json\r\nTransfer-Encoding: chunked",
            b"".join(b"400\r\n" + b"a" * 1024 + b"\r\n" for _ in range(70)),
        ),
        (
            ANONYMOUS.replace("Host", "Authorization: bearer nope\r\nHost") + "Content-Length: 0",
            b"",
        ),
    ],
    ids=["declared", "chunked", "wrong-token"],
)
def test_the_token_is_checked_before_the_size(server, head, body):
    assert raw_request(server, head, body) == b"HTTP/1.1 401 Unauthorized"


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


def test_sigterm_stops_the_server_and_its_workers_without_a_traceback(
    tiny_model: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    with serving(tiny_model, log_path=log) as url:
        port = int(url.rsplit(":", 1)[1])
        mains = [
            p
            for p in psutil.process_iter(["cmdline"])
            if "kgmodels.graph2text.serve" in (p.info["cmdline"] or [])
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
        assert [p.returncode for p in gone if p.pid == parent.pid] == [0]
    text = log.read_text()
    assert "Shutting down LitServe" in text
    assert "Traceback" not in text


def server_family(port: int) -> list[psutil.Process]:
    """The server's main process (``serving``'s child) and every process under it."""
    mains = [
        p
        for p in psutil.process_iter(["cmdline"])
        if "kgmodels.graph2text.serve" in (p.info["cmdline"] or [])
        and str(port) in (p.info["cmdline"] or [])
    ]
    pids = {p.pid for p in mains}
    (root,) = [p for p in mains if p.ppid() not in pids]  # forked API servers share argv
    return [root, *root.children(recursive=True)]


READ_TIMEOUT = 2.0
#: How much later than the read timeout a connection may be closed (scheduling 1,000 of them
#: on a busy machine), and how much the server's memory may grow for good.
CLOSE_SLACK = 3.0
RSS_GROWTH = 1.2
HALF_HEADERS = b"POST /predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\nContent-"
HALF_BODY = (
    b"POST /predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret\r\n"
    b"Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n"
    + b'{"triples": [["Alan Bean", "occupation", '
)


def hold_slow_connections(port: int, count: int) -> list[tuple[float, bytes]]:
    """Open ``count`` connections, half of them sending part of the headers and half part of a
    body, and wait for the server to close each: ``(seconds it stayed open, what it said)``."""
    selector = selectors.DefaultSelector()
    closed: list[tuple[float, bytes]] = []
    try:
        for i in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            sock.sendall(HALF_HEADERS if i % 2 else HALF_BODY)
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, (time.monotonic(), bytearray()))
        give_up = time.monotonic() + READ_TIMEOUT + 60
        while len(closed) < count and time.monotonic() < give_up:
            for key, _ in selector.select(timeout=1):
                sock, (opened, said) = key.fileobj, key.data
                try:
                    chunk = sock.recv(4096)  # type: ignore[union-attr]
                except (ConnectionResetError, BlockingIOError):
                    chunk = b""
                if chunk:
                    said.extend(chunk)
                    continue
                closed.append((time.monotonic() - opened, bytes(said)))
                selector.unregister(sock)
                sock.close()  # type: ignore[union-attr]
    finally:
        for key in list(selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        selector.close()
    return closed


@pytest.mark.slow  # 1,000 sockets and a server of its own: about 30 s
def test_a_thousand_slow_connections_are_closed_in_time_and_leave_no_memory_behind(
    tiny_model: Path,
) -> None:
    extra = ["--read-timeout", str(READ_TIMEOUT)]
    with serving(tiny_model, token="s3cret", extra_args=extra) as url:
        port = int(url.rsplit(":", 1)[1])
        family = server_family(port)
        for _ in range(3):  # warm up: the first requests allocate for good
            assert httpx.post(f"{url}/predict", json={"triples": [TRIPLE]}, headers=AUTH)
        before = {p.pid: p.memory_info().rss for p in family}
        closed = hold_slow_connections(port, 1000)
        assert len(closed) == 1000, f"{1000 - len(closed)} slow connections still open"
        assert max(seconds for seconds, _ in closed) <= READ_TIMEOUT + CLOSE_SLACK
        assert min(seconds for seconds, _ in closed) >= READ_TIMEOUT - 0.2
        assert all(said.startswith(b"HTTP/1.1 408 Request Timeout") for _, said in closed)
        time.sleep(1)
        after = {p.pid: p.memory_info().rss for p in family}
        grown = {pid: round(after[pid] / before[pid], 2) for pid in before}
        print(f"closed in {min(t for t, _ in closed):.2f}-{max(t for t, _ in closed):.2f} s; "
              f"RSS after/before per process: {grown}")  # fmt: skip
        assert all(ratio <= RSS_GROWTH for ratio in grown.values()), grown
        again = httpx.post(f"{url}/predict", json={"triples": [TRIPLE]}, headers=AUTH)
        assert again.status_code == 200  # and it still serves
