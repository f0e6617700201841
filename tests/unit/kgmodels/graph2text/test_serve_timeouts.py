"""The read deadline of the Graph2Text server's HTTP protocol, on a bare uvicorn (no model).

A client must send each request whole within the deadline; the application's own time and the
wait between kept-alive requests are not under it.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from kgmodels.graph2text.serve_timeouts import read_timeout_protocol

READ_TIMEOUT = 0.6
SLACK = 1.5
seen: list[str] = []


async def app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
    """Reads the whole body, waits ``?sleep`` seconds, answers 200 with the body's length."""
    if scope["type"] != "http":
        return
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            seen.append("disconnect")
            return
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    if scope["query_string"].startswith(b"sleep="):
        await asyncio.sleep(float(scope["query_string"][6:]))
    body = str(size).encode()
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        http=read_timeout_protocol(READ_TIMEOUT),
        log_level="error",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield server.servers[0].sockets[0].getsockname()[1]
    server.should_exit = True
    thread.join(timeout=10)


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT + SLACK + 5)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection."""
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data


def request(body: bytes = b"", query: str = "") -> bytes:
    target = "/" + (f"?{query}" if query else "")
    head = f"POST {target} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


@pytest.mark.parametrize(
    "sent",
    [
        b"",  # connected and silent
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-",  # headers cut short
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + b"a" * 10,  # body cut short
    ],
    ids=["silent", "partial-headers", "partial-body"],
)
def test_a_half_sent_request_gets_408_and_is_closed_in_time(port: int, sent: bytes) -> None:
    seen.clear()
    with connect(port) as sock:
        started = time.monotonic()
        sock.sendall(sent)
        answer = read_all(sock)
        took = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout")
    assert READ_TIMEOUT - 0.1 <= took <= READ_TIMEOUT + SLACK
    if b"\r\n\r\n" in sent:
        time.sleep(0.2)
        assert seen == ["disconnect"]  # the application was told the client went away


def test_a_trickled_request_is_cut_off_at_the_deadline_not_at_each_byte(port: int) -> None:
    whole = request(b"x" * 40)
    with connect(port) as sock:
        started = time.monotonic()
        try:
            for byte in whole:  # one byte every 0.1 s: never idle for long, never done in time
                sock.sendall(bytes([byte]))
                time.sleep(0.1)
        except OSError:
            pass  # the server closed the connection
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408")
    assert time.monotonic() - started <= READ_TIMEOUT + SLACK + 0.2


def test_the_application_s_time_is_not_under_the_deadline(port: int) -> None:
    with connect(port) as sock:
        sock.sendall(request(b"abc", query=f"sleep={READ_TIMEOUT * 2}"))
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"3")


def test_each_kept_alive_request_has_its_own_deadline(port: int) -> None:
    with connect(port) as sock:
        sock.sendall(request(b"ab"))
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        time.sleep(READ_TIMEOUT * 1.5)  # idle between requests: keep-alive's business (5 s)
        sock.sendall(request(b"abcd")[:10])
        time.sleep(READ_TIMEOUT / 2)
        sock.sendall(request(b"abcd")[10:])
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"4")
