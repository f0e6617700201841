"""The Graph2Text HTTP server on LitServe, with dynamic batching.

Why LitServe: it is a serving framework made for this (dynamic batching with
``max_batch_size`` / ``batch_timeout``, inference workers per device, GPU placement) that
installs and runs offline here, unlike a hand-written batching queue. What it lacks is added
here: an open ``/healthz`` (LitServe's ``/health`` sits behind its API key), an optional
bearer token checked by an ASGI middleware on every other path before anything else (the
scheme in any case, ``Bearer`` or ``bearer``), a request body limit
(:data:`~kgmodels.graph2text.serve_limits.MAX_BODY_BYTES`, 413, judged by ``Content-Length``
before reading and by counting a streamed body), a deadline for reading each request, headers
and body (:mod:`~kgmodels.graph2text.serve_timeouts`: a slow client gets 408 and is closed),
and input limits checked by FastAPI against a pydantic request model: too many triples, empty
parts, parts too long, lone surrogates and control characters are a 422 naming the problem
(never the input echoed back, never a 500). Every option is checked before anything is loaded
(:func:`~kgmodels.graph2text.serve_options.check_serve_options`), and a server listening
beyond this machine without a token says so on stderr when it starts. SIGTERM and SIGINT stop
the server and its workers without a traceback.

``POST /predict`` takes ``{"triples": [[s, p, o], ...]}`` and answers
``{"text": "...", "guard_ok": true, "batch": 7}`` (the raw model text, whether it passes the
guard, and how many requests shared its forward pass). Started without a model, it serves the
default Graph2Text model (:mod:`kgcore.text.graph2text.default`); the start-up line and
``/healthz`` name the model served.

Example
-------
>>> server = build_server("models/graph2text-webnlg-small", token="secret")  # doctest: +SKIP
>>> run_server(server, port=8000)                                              # doctest: +SKIP
"""

# No `from __future__ import annotations`: LitServe and FastAPI read decode_request's
# annotation (G2TRequest) at run time to validate requests.
import hmac
import json
import os
import signal
import sys
from typing import Any

from kgcore.exceptions import ConfigurationError, KGRetrieverError, MissingDependencyError
from kgmodels.graph2text.serve_limits import (
    MAX_BODY_BYTES,
    BodyLimitMiddleware,
    bad_character,
    validation_error_response,
)
from kgmodels.graph2text.serve_options import (
    DEFAULT_MODEL,
    DEFAULT_READ_TIMEOUT,
    ServeOptions,
    add_serve_arguments,
    check_serve_options,
    exposure_warning,
    startup_line,
)

#: Input limits: at most this many triples per request, characters per field and in all.
MAX_TRIPLES = 32
MAX_FIELD_CHARS = 300
MAX_TOTAL_CHARS = 4000
OPEN_PATHS = frozenset({"/healthz"})

try:
    import litserve as ls
    from pydantic import BaseModel, Field, field_validator, model_validator
except ImportError as err:  # pragma: no cover - the [g2t] extra
    raise MissingDependencyError("litserve", "g2t") from err


class G2TRequest(BaseModel):
    """A community to write: ``triples`` as ``[subject, predicate, object]`` lists."""

    triples: list[list[str]] = Field(min_length=1, max_length=MAX_TRIPLES)

    @field_validator("triples")
    @classmethod
    def _check_triples(cls, triples: list[list[str]]) -> list[list[str]]:
        for index, triple in enumerate(triples):
            if len(triple) != 3:
                raise ConfigurationError(f"triple {index} has {len(triple)} parts, expected 3")
            for position, part in enumerate(triple):
                if not part.strip():
                    raise ConfigurationError(f"triple {index} part {position} is empty")
            if any(len(part) > MAX_FIELD_CHARS for part in triple):
                raise ConfigurationError(
                    f"triple {index} has a part over {MAX_FIELD_CHARS} characters"
                )
            for position, part in enumerate(triple):
                bad = bad_character(part)
                if bad is not None:
                    raise ConfigurationError(f"triple {index} part {position} holds {bad}")
        return triples

    @model_validator(mode="after")
    def _check_total(self) -> "G2TRequest":
        total = sum(len(part) for triple in self.triples for part in triple)
        if total > MAX_TOTAL_CHARS:
            raise ConfigurationError(
                f"{total} characters of triples, over the {MAX_TOTAL_CHARS} limit"
            )
        return self


class Graph2TextAPI(ls.LitAPI):
    """LitServe API: one request is one community; batches go to ``Graph2Text.generate``."""

    def __init__(
        self,
        model: str,
        max_batch_size: int = 16,
        batch_timeout: float = 0.05,
        num_beams: int | None = None,
        threads: int | None = None,
    ) -> None:
        if num_beams is not None and (isinstance(num_beams, bool) or num_beams < 1):
            raise ConfigurationError(f"--beams must be at least 1, not {num_beams!r}")
        super().__init__(max_batch_size=max_batch_size, batch_timeout=batch_timeout)
        self.model_name = model
        self.num_beams = num_beams
        self.threads = threads

    def setup(self, device: str) -> None:
        import torch

        from kgcore.text.graph2text.model import Graph2Text

        if self.threads:
            torch.set_num_threads(self.threads)
        # The folder's writing defaults (g2t_config.json) unless a beam count is given.
        beams = {} if self.num_beams is None else {"num_beams": self.num_beams, "candidates": 1}
        self.g2t = Graph2Text.from_pretrained(
            self.model_name, device=device, batch_size=64, **beams
        )

    def decode_request(self, request: G2TRequest, **kwargs: Any) -> list[tuple[str, str, str]]:
        return [(h, r, t) for h, r, t in request.triples]

    def predict(self, x: Any, **kwargs: Any) -> Any:
        from kgcore.text.graph2text.guard import check_text

        batched = self.max_batch_size > 1
        communities = list(x) if batched else [x]
        texts = self.g2t.generate(communities)
        out = [
            {"text": text, "guard_ok": check_text(text, triples).ok, "batch": len(texts)}
            for text, triples in zip(texts, communities, strict=True)
        ]
        return out if batched else out[0]

    def encode_response(self, output: Any, **kwargs: Any) -> dict[str, Any]:
        return dict(output)


def bearer_token(header: bytes) -> bytes | None:
    """The token of an ``Authorization`` header's value; the scheme is read in any case
    (RFC 9110: ``Bearer``, ``bearer``, ``BEARER``); ``None`` for another scheme.

    >>> bearer_token(b"bearer s3cret"), bearer_token(b"Basic czNjcmV0")
    (b's3cret', None)
    """
    scheme, _, credentials = header.strip().partition(b" ")
    if scheme.lower() != b"bearer":
        return None
    return credentials.strip()


class TokenAuthMiddleware:
    """ASGI middleware: ``Authorization: Bearer TOKEN`` on every path but the open ones."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] not in OPEN_PATHS:
            headers = [v for k, v in scope.get("headers") or [] if k.lower() == b"authorization"]
            given = bearer_token(headers[0]) if len(headers) == 1 else None
            if given is None or not hmac.compare_digest(given, self.expected):
                body = json.dumps({"detail": "missing or wrong bearer token"}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def _has_zmq() -> bool:
    try:
        import zmq  # noqa: F401
    except ImportError:
        return False
    return True


def build_server(
    model: str,
    *,
    token: str | None = None,
    max_batch_size: int = 16,
    batch_timeout: float = 0.05,
    num_beams: int | None = None,
    timeout: float = 120.0,
    threads: int | None = None,
    accelerator: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    model_name: str | None = None,
) -> Any:
    """A ``litserve.LitServer`` for a model folder or Hub id (GPU when present, else CPU).

    The token is checked first: a request without it gets 401 whatever its size; then request
    bodies over ``max_body_bytes`` are answered with 413. ``/healthz`` answers
    ``{"ready": ..., "model": model_name}`` (the folder when no name is given).
    """
    import torch
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import Response

    api = Graph2TextAPI(model, max_batch_size, batch_timeout, num_beams, threads)
    # Starlette runs the last added middleware first: the token, then the body limit.
    middlewares: list[Any] = [(BodyLimitMiddleware, {"max_bytes": max_body_bytes})]
    if token:
        middlewares.append((TokenAuthMiddleware, {"token": token}))
    server = ls.LitServer(
        api,
        accelerator=accelerator or ("cuda" if torch.cuda.is_available() else "cpu"),
        devices=1,
        workers_per_device=1,
        timeout=timeout,
        middlewares=middlewares,
        fast_queue=_has_zmq(),  # ZeroMQ instead of a Manager queue: less per-request IPC
    )

    async def healthz() -> Any:
        from fastapi.responses import JSONResponse

        status = getattr(server, "workers_setup_status", None) or {}
        ready = bool(status) and all(str(v).lower().endswith("ready") for v in status.values())
        body = {"ready": ready, "model": model_name or model}
        return JSONResponse(body, status_code=200 if ready else 503)

    async def invalid_request(request: Any, exc: RequestValidationError) -> Any:
        status, body = validation_error_response(exc.errors())
        return Response(body, status_code=status, media_type="application/json")

    server.app.add_api_route("/healthz", healthz, methods=["GET"])
    server.app.add_exception_handler(RequestValidationError, invalid_request)
    return server


def run_server(
    server: Any,
    host: str = "127.0.0.1",
    port: int = 8000,
    read_timeout: float = DEFAULT_READ_TIMEOUT,
) -> None:
    """Run until SIGINT or SIGTERM; both stop the inference workers with the server, quietly.

    Each request must be read whole within ``read_timeout`` seconds of its start (uvicorn's h11
    protocol with :mod:`~kgmodels.graph2text.serve_timeouts`' deadline).

    In this process the signal becomes the ``KeyboardInterrupt`` on which LitServe's ``run()``
    stops its workers. The API server processes LitServe forks inherit the handler: there
    (uvicorn re-raises the signal once it has shut down) it exits with status 0 instead of
    printing a ``KeyboardInterrupt`` traceback.
    """
    main_pid = os.getpid()

    def _stop(signum: int, frame: Any) -> None:
        if os.getpid() != main_pid:
            raise SystemExit(0)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    from kgmodels.graph2text.serve_timeouts import read_timeout_protocol

    server.run(
        host=host,
        port=port,
        generate_client_file=False,
        num_api_servers=1,
        http=read_timeout_protocol(read_timeout),
    )


def serve(options: ServeOptions) -> int:
    """Build and run the server from checked options; warn first when it is exposed."""
    warning = exposure_warning(options.host, options.token)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    print(startup_line(options), flush=True)
    server = build_server(
        options.model,
        token=options.token,
        max_batch_size=options.max_batch_size,
        batch_timeout=options.batch_timeout,
        num_beams=options.num_beams,
        threads=options.threads,
        timeout=options.timeout,
        max_body_bytes=options.max_body_bytes,
        model_name=options.model_name,
    )
    run_server(server, host=options.host, port=options.port, read_timeout=options.read_timeout)
    return 0


def serve_from_arguments(args: Any) -> int:
    """Check parsed :func:`add_serve_arguments` options, then build and run the server."""
    return serve(check_serve_options(args))


def main(argv: Any = None) -> int:
    """``python -m kgmodels.graph2text.serve MODEL --port 8000``: a bad option is one line on
    stderr and exit status 2."""
    import argparse

    parser = argparse.ArgumentParser(description="Serve a Graph2Text model over HTTP (LitServe).")
    add_serve_arguments(parser, DEFAULT_MODEL)
    args = parser.parse_args(argv)
    try:
        options = check_serve_options(args)
    except KGRetrieverError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2
    return serve(options)


if __name__ == "__main__":
    raise SystemExit(main())
