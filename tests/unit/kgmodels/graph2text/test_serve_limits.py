"""The server's door checks without a server: the body limit middleware and bad characters."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

import pytest

from kgcore.exceptions import ConfigurationError
from kgmodels.graph2text.serve_limits import (
    MAX_BODY_BYTES,
    BodyLimitMiddleware,
    bad_character,
    validation_error_response,
)
from kgmodels.graph2text.serve_options import add_serve_arguments, check_serve_options

LIMIT = 100


def call(
    headers: list[tuple[bytes, bytes]], chunks: list[bytes], disconnect: bool = False
) -> tuple[list[dict[str, Any]], list[bytes], int]:
    """Run the middleware over one request; ``(messages sent, bodies the app saw, reads)``."""
    seen: list[bytes] = []
    sent: list[dict[str, Any]] = []
    reads = 0
    messages = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
        for i, chunk in enumerate(chunks)
    ]
    if disconnect:
        messages = [*messages[:1], {"type": "http.disconnect"}]

    async def receive() -> dict[str, Any]:
        nonlocal reads
        reads += 1
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        seen.append(body)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    scope = {"type": "http", "method": "POST", "path": "/predict", "headers": headers}
    asyncio.run(BodyLimitMiddleware(app, max_bytes=LIMIT)(scope, receive, send))
    return sent, seen, reads


def length(n: int) -> list[tuple[bytes, bytes]]:
    return [(b"content-length", str(n).encode())]


@pytest.mark.parametrize(
    ("headers", "chunks", "status", "passed_on"),
    [
        (length(100), [b"x" * 100], 200, b"x" * 100),  # at the limit: handed on whole
        (length(100), [b"x" * 50, b"y" * 50], 200, b"x" * 50 + b"y" * 50),
        ([], [b"x" * 40, b"y" * 40, b"z" * 20], 200, b"x" * 40 + b"y" * 40 + b"z" * 20),
        ([], [b""], 200, b""),
        (length(101), [b"x" * 101], 413, None),
        (length(100 * 2**20), [b"x"], 413, None),  # refused on the header alone
        ([(b"Content-Length", b"101")], [b"x" * 101], 413, None),
        ([], [b"x" * 60, b"y" * 60, b"z" * 60], 413, None),  # streamed, no length given
        (length(10), [b"x" * 60, b"y" * 60], 413, None),  # a length that lies
        ([(b"content-length", b"lots")], [b"x"], 400, None),
    ],
)
def test_body_limit_status(
    headers: list[tuple[bytes, bytes]],
    chunks: list[bytes],
    status: int,
    passed_on: bytes | None,
) -> None:
    sent, seen, _ = call(headers, chunks)
    assert sent[0]["status"] == status
    assert seen == ([] if passed_on is None else [passed_on])
    if status == 413:
        assert json.loads(sent[1]["body"]) == {"detail": "request body over the 100-byte limit"}
        assert (b"connection", b"close") in sent[0]["headers"]


def test_a_declared_length_over_the_limit_is_refused_before_reading() -> None:
    _, _, reads = call(length(10**9), [b"x" * 10])
    assert reads == 0


def test_a_client_that_goes_away_gets_no_answer() -> None:
    sent, seen, _ = call([], [b"x" * 10, b"y"], disconnect=True)
    assert sent == [] and seen == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("\ud800", "a lone surrogate (U+D800)"),
        ("Alan \udfff Bean", "a lone surrogate (U+DFFF)"),
        ("a\x00b", "a control character (U+0000)"),
        ("\x1b[31mred", "a control character (U+001B)"),
        ("bell\x07", "a control character (U+0007)"),
        ("next\x85line", "a control character (U+0085)"),
        ("tab\there", "a control character (U+0009)"),
        ("Alan Bean", None),
        ("Zürich 🚀 東京", None),
    ],
)
def test_bad_character(text: str, problem: str | None) -> None:
    assert bad_character(text) == problem


def test_validation_errors_never_echo_the_input() -> None:
    errors = [
        {"type": "value_error", "loc": ("body", "\ud800"), "msg": "bad", "input": "x" * 10**6}
    ]
    status, body = validation_error_response(errors)
    assert status == 422
    assert body.decode("ascii")  # ASCII JSON: a surrogate is escaped, never a 500
    assert json.loads(body) == {
        "detail": [{"type": "value_error", "loc": ["body", "\ud800"], "msg": "bad"}]
    }


@pytest.mark.parametrize(
    ("value", "ok"), [("1", True), ("65536", True), ("0", False), ("-5", False)]
)
def test_max_body_bytes_option(value: str, ok: bool) -> None:
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    assert parser.parse_args([]).max_body_bytes == MAX_BODY_BYTES
    args = parser.parse_args(["--max-body-bytes", value])
    if ok:
        assert check_serve_options(args).max_body_bytes == int(value)
    else:
        with pytest.raises(ConfigurationError, match="--max-body-bytes must be an integer"):
            check_serve_options(args)


def test_a_max_body_bytes_that_is_no_integer_is_a_usage_error() -> None:
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["--max-body-bytes", "x"])
    assert exit_info.value.code == 2
