"""``RemoteGraph2Text``: the Graph2Text HTTP server (``kgqa g2t serve``) as a generator.

It has the same ``generate(communities)`` and ``(nodes, triples)`` call as
:class:`~kgcore.text.graph2text.Graph2Text`, so FastToG, the guard and the LangChain /
LlamaIndex tools take either. Communities are sent as concurrent requests (the server
batches them); the server's reply is untrusted: each read is capped and a malformed reply
counts as an empty text (which the guard then rejects), never an exception.

Example
-------
>>> remote = RemoteGraph2Text("http://127.0.0.1:8000", token="secret")   # doctest: +SKIP
>>> remote.generate([[("Alan Bean", "occupation", "Test pilot")]])        # doctest: +SKIP
['Alan Bean was a test pilot.']
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kgcore.exceptions import ConfigurationError, GraphStoreError, MissingDependencyError
from kgcore.types import Triple

#: The most bytes of one reply that are read, and of the text that is kept.
MAX_REPLY_BYTES = 64_000
MAX_TEXT_CHARS = 4_000


class Graph2TextServerError(GraphStoreError):
    """The Graph2Text server could not be reached, refused the token or the input."""


def parse_reply(body: bytes) -> str:
    """The ``text`` of a server reply, or ``""`` when the reply is not one.

    >>> parse_reply(b'{"text": "Alan Bean was a test pilot."}')
    'Alan Bean was a test pilot.'
    >>> parse_reply(b"<html>"), parse_reply(b'{"text": 3}'), parse_reply(b'[1]')
    ('', '', '')
    """
    try:
        data = json.loads(body[:MAX_REPLY_BYTES].decode("utf-8", errors="replace"))
    except ValueError:
        return ""
    text = data.get("text") if isinstance(data, dict) else None
    return text[:MAX_TEXT_CHARS] if isinstance(text, str) else ""


class RemoteGraph2Text:
    """A client of ``kgqa g2t serve``.

    Parameters
    ----------
    url : str
        The server, ``http://host:port`` (``/predict`` is appended).
    token : str, optional
        Sent as ``Authorization: Bearer TOKEN`` when the server was started with one.
    timeout : float
        Seconds per request.
    concurrency : int
        Requests in flight for one ``generate`` call.
    """

    def __init__(
        self, url: str, token: str | None = None, timeout: float = 60.0, concurrency: int = 8
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise ConfigurationError(f"Graph2Text server URL must be http(s)://..., got {url!r}")
        try:
            import httpx
        except ImportError as err:  # pragma: no cover - comes with the [g2t] extra
            raise MissingDependencyError("httpx", "g2t") from err
        self.url = url.rstrip("/")
        self.token = token
        self.concurrency = max(1, concurrency)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(headers=headers, timeout=timeout)

    def _one(self, triples: Sequence[Sequence[str]]) -> str:
        import httpx

        payload = {"triples": [[str(h), str(r), str(t)] for h, r, t in triples]}
        try:
            response = self._client.post(f"{self.url}/predict", json=payload)
        except httpx.HTTPError as err:
            raise Graph2TextServerError(f"Graph2Text server {self.url} failed: {err}") from err
        if response.status_code in (401, 403):
            raise Graph2TextServerError(f"Graph2Text server {self.url} refused the token")
        if 400 <= response.status_code < 500:
            raise Graph2TextServerError(
                f"Graph2Text server {self.url} rejected the input ({response.status_code}): "
                f"{response.text[:300]}"
            )
        if response.status_code != 200:
            return ""  # a server error: the guard falls back to Triple2Text
        return parse_reply(response.content)

    def generate(self, communities: Sequence[Sequence[Sequence[str]]]) -> list[str]:
        """One text per community, in order (requests run concurrently)."""
        if len(communities) <= 1:
            return [self._one(c) for c in communities]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(communities))) as pool:
            return list(pool.map(self._one, communities))

    def health(self) -> bool:
        """Whether the server answers its open ``/healthz`` endpoint."""
        import httpx

        try:
            return self._client.get(f"{self.url}/healthz").status_code == 200
        except httpx.HTTPError:
            return False

    def close(self) -> None:
        self._client.close()

    def __call__(self, nodes: Sequence[str], triples: Sequence[Triple]) -> str:
        if not triples:
            return ", ".join(nodes) + "."
        return self.generate([triples])[0]

    def __enter__(self) -> RemoteGraph2Text:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
