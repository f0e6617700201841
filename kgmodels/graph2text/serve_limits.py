"""What the Graph2Text server refuses before the model sees it: big bodies and bad text.

Pure ASGI and the standard library (no server library), so it is tested without a server:

- :class:`BodyLimitMiddleware` answers 413 to a request body over :data:`MAX_BODY_BYTES`,
  judged by ``Content-Length`` before anything is read, and by counting for a streamed
  (chunked) body, which is buffered up to the limit and then handed on;
- :func:`bad_character` names the first character no triple may hold (a lone surrogate, which
  is not Unicode text and cannot be written back as UTF-8, or a control character);
- :func:`validation_error_response` writes a 422 that names each problem without echoing the
  input (which may be large, or hold the very characters refused).

Example
-------
>>> bad_character("Alan Bean")
>>> bad_character("Alan\\ud800")
'a lone surrogate (U+D800)'
>>> bad_character("Alan\\x1b[31m")
'a control character (U+001B)'
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

#: Largest request body, in bytes. The largest valid request (32 triples, 4,000 characters)
#: takes under 49 kB even with every character written as a ``\\uXXXX\\uXXXX`` escape pair.
MAX_BODY_BYTES = 65_536

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def bad_character(text: str) -> str | None:
    """The first character of ``text`` no triple may hold, described; ``None`` when clean."""
    for char in text:
        category = unicodedata.category(char)
        if category == "Cs":
            return f"a lone surrogate (U+{ord(char):04X})"
        if category == "Cc":
            return f"a control character (U+{ord(char):04X})"
    return None


async def send_json(send: Send, status: int, payload: Any, close: bool = False) -> None:
    """Answer with ``payload`` as ASCII JSON (``close``: ask the client to drop the connection)."""
    body = json.dumps(payload).encode("ascii")
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyLimitMiddleware:
    """ASGI middleware: 413 for a request body over ``max_bytes`` (see the module doc).

    Parameters
    ----------
    app : ASGI application
        The application behind it.
    max_bytes : int
        The largest body passed on.
    """

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = [v for k, v in scope.get("headers") or [] if k.lower() == b"content-length"]
        if declared:
            try:
                size = int(declared[0])
            except ValueError:
                await send_json(send, 400, {"detail": "malformed Content-Length"}, close=True)
                return
            if size > self.max_bytes:
                await self._too_large(send)
                return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            body += message.get("body", b"")
            if len(body) > self.max_bytes:
                await self._too_large(send)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        detail = f"request body over the {self.max_bytes}-byte limit"
        await send_json(send, 413, {"detail": detail}, close=True)


def validation_error_response(errors: Any) -> tuple[int, bytes]:
    """``(422, body)`` naming each problem (``loc`` and ``msg``), never echoing the input."""
    detail = [
        {"type": str(e.get("type", "")), "loc": list(e.get("loc", ())), "msg": str(e.get("msg"))}
        for e in errors
    ]
    return 422, json.dumps({"detail": detail}).encode("ascii")
