"""Read deadlines for the Graph2Text server: a client that holds a request half-sent is closed.

Uvicorn's ``timeout_keep_alive`` only closes a connection that is idle *between* requests; a
client that sends part of a request's headers, or announces a body and sends a few bytes of it,
is otherwise waited for forever, and each such connection holds memory (issue 51: thousands of
them raised the server's memory for good). No option of uvicorn or h11 sets a deadline for
reading a request, and an ASGI middleware never sees a request whose headers are not complete,
so the deadline is kept at the protocol: :func:`read_timeout_protocol` makes a subclass of
uvicorn's h11 protocol that arms a timer

- when a connection opens (the client must begin and finish its first request in time), and
- when the first bytes of a later request arrive on a kept-alive connection,

and disarms it once the request is read whole (h11's ``their_state`` is ``DONE``): the model's
work is not under this deadline, only the client's sending. When the timer fires before, the
client gets ``408 Request Timeout`` (if nothing was answered yet) and the connection is closed;
the application, if it was waiting for the body, is told the client went away.

Example
-------
>>> protocol = read_timeout_protocol(2.5)
>>> protocol.read_timeout, protocol.__name__
(2.5, 'ReadTimeoutH11Protocol')
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: What a client that was too slow is told before the connection is closed.
TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: 24\r\n"
    b"connection: close\r\n\r\n"
    b"request read timed out.\n"
)


class ReadTimeoutH11Protocol(H11Protocol):
    """Uvicorn's h11 protocol with a deadline for reading each request (see the module doc)."""

    #: Seconds from a connection's start (or a request's first byte) to the request read whole.
    read_timeout: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._read_deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _reading(self) -> bool:
        """Whether a request is being read: begun (or the connection new) and not finished."""
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            return True
        if state is not h11.IDLE:  # DONE, MUST_CLOSE, CLOSED, ERROR: nothing more to read
            return False
        # Between requests uvicorn's keep-alive timer runs until a byte arrives.
        return self.timeout_keep_alive_task is None

    def _follow(self) -> None:
        if self.transport is None or self.transport.is_closing():
            self._disarm()
        elif self._reading():
            self._arm()
        else:
            self._disarm()

    def _arm(self) -> None:
        if self._read_deadline is None:
            self._read_deadline = self.loop.call_later(self.read_timeout, self._timed_out)

    def _disarm(self) -> None:
        deadline = getattr(self, "_read_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._read_deadline = None

    def _timed_out(self) -> None:
        self._read_deadline = None
        if self.transport.is_closing() or not self._reading():
            return
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(TIMEOUT_RESPONSE)
        self.transport.close()


def read_timeout_protocol(seconds: float) -> Any:
    """A :class:`ReadTimeoutH11Protocol` class reading each request within ``seconds``
    (for ``uvicorn.Config(http=...)``, which takes a protocol class)."""
    return type("ReadTimeoutH11Protocol", (ReadTimeoutH11Protocol,), {"read_timeout": seconds})
