"""The Graph2Text server's command-line options, shared by ``python -m
kgmodels.graph2text.serve`` and ``kgqa g2t serve`` (importing them loads no server library),
and their checks at the door: :func:`check_serve_options` refuses a bad value with one
:class:`~kgcore.exceptions.ConfigurationError` line before any library or model is loaded, and
:func:`exposure_warning` is the line printed when the server listens beyond this machine
without a token.

Example
-------
>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_serve_arguments(parser)
>>> parser.parse_args(["m", "--port", "9000"]).port
9000
>>> check_serve_options(parser.parse_args(["m", "--port", "-1"]))
Traceback (most recent call last):
...
kgcore.exceptions.ConfigurationError: --port must be an integer from 1024 to 65535, got -1
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass, replace
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgmodels.graph2text.serve_limits import MAX_BODY_BYTES

#: The model served when none is named: the default Graph2Text model
#: (:func:`kgcore.text.graph2text.default.choose_graph2text`: the fine-tuned SmolLM2 where it
#: runs, else the small T5).
DEFAULT_MODEL: str | None = None
#: Seconds a client has to send one whole request (headers and body) once it has begun.
DEFAULT_READ_TIMEOUT = 10.0
#: Where the token is read from when ``--token`` is not given.
TOKEN_VARIABLE = "KG_G2T_TOKEN"
#: The addresses LitServe binds (it refuses any other), and the loopback ones among them.
HOSTS = ("127.0.0.1", "0.0.0.0", "::")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost"})
#: The ports LitServe accepts.
PORTS = (1024, 65535)


def add_serve_arguments(
    parser: argparse.ArgumentParser, default_model: str | None = DEFAULT_MODEL
) -> None:
    """Add the server's options to ``parser``."""
    parser.add_argument(
        "model",
        nargs="?",
        default=default_model,
        help="folder or Hub id (default: the fine-tuned SmolLM2 Graph2Text where its extra and "
        "base model are installed, else the small T5)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="127.0.0.1 (default), localhost, 0.0.0.0 or ::"
    )
    parser.add_argument("--port", type=int, default=8000, help="1024 to 65535")
    parser.add_argument("--token", help=f"bearer token (or {TOKEN_VARIABLE}); /healthz stays open")
    parser.add_argument("--max-batch-size", type=int, default=16)
    parser.add_argument("--batch-timeout", type=float, default=0.05, help="seconds")
    parser.add_argument(
        "--beams", type=int, help="beam search width, one candidate (default: the model folder's)"
    )
    parser.add_argument("--threads", type=int, help="torch threads per worker")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    parser.add_argument(
        "--read-timeout",
        type=float,
        default=DEFAULT_READ_TIMEOUT,
        help="seconds a client has to send a whole request, headers and body, once it has "
        f"connected or begun one; slower clients are closed (default {DEFAULT_READ_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=MAX_BODY_BYTES,
        help=f"largest request body; bigger ones get 413 (default {MAX_BODY_BYTES})",
    )


@dataclass(frozen=True)
class ServeOptions:
    """The checked options: what :func:`check_serve_options` hands to the server.

    ``model`` is the folder to load; ``model_name`` what the start-up line and ``/healthz``
    call it (the default model's name, or the model as given); ``fallback`` why the small T5
    is served instead of the fine-tuned model (``None`` when it is not).
    """

    model: str
    host: str
    port: int
    token: str | None
    max_batch_size: int
    batch_timeout: float
    num_beams: int | None
    threads: int | None
    timeout: float
    read_timeout: float
    max_body_bytes: int
    model_name: str | None = None
    fallback: str | None = None


def _integer(name: str, value: Any, low: int, high: int | None = None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ConfigurationError(f"{name} must be an integer {bounds}, got {value!r}")
    return value


def _seconds(name: str, value: Any, *, zero: bool) -> float:
    ok = (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and (value >= 0 if zero else value > 0)
    )
    if not ok:
        bound = "0 or more" if zero else "more than 0"
        raise ConfigurationError(
            f"{name} must be a finite number of seconds, {bound}, got {value!r}"
        )
    return float(value)


def _token(given: str | None) -> str | None:
    token = given if given is not None else os.environ.get(TOKEN_VARIABLE) or None
    if token is None:
        return None
    source = "--token" if given is not None else TOKEN_VARIABLE
    if not token:
        raise ConfigurationError(f"{source} is empty: give a token or leave it out")
    if not token.isascii() or not token.isprintable() or any(c.isspace() for c in token):
        raise ConfigurationError(f"{source} must be printable ASCII without spaces")
    return token


def _host(host: str) -> str:
    if host == "localhost":
        return "127.0.0.1"
    if host not in HOSTS:
        raise ConfigurationError(
            f"--host must be 127.0.0.1, localhost, 0.0.0.0 or :: (the addresses LitServe binds), "
            f"got {host!r}"
        )
    return host


def _model(name: str | None) -> tuple[str, str, str | None]:
    """``(folder, name, fallback)``: the model folder, found without loading anything (a Hub
    id: its snapshot, fetched); ``None`` is the default model
    (:func:`~kgcore.text.graph2text.default.choose_graph2text`)."""
    from kgcore.text.graph2text.model import resolve_model_folder

    fallback = None
    try:
        if name is None:
            from kgcore.text.graph2text.default import choose_graph2text

            choice = choose_graph2text()
            name, fallback = choice.name, choice.fallback
            return str(resolve_model_folder(choice.where)), name, fallback
        return str(resolve_model_folder(name)), name, fallback
    except ConfigurationError as err:  # the Hub client's messages run over several lines
        raise ConfigurationError(" ".join(str(err).split())) from err


def check_serve_options(args: argparse.Namespace) -> ServeOptions:
    """The options of :func:`add_serve_arguments`, checked; the first bad one is a
    :class:`~kgcore.exceptions.ConfigurationError` naming it (the CLI's one line, exit 2).

    Cheap checks come first, the model folder last (a Hub id is looked up in the cache).
    """
    options = ServeOptions(
        model="" if args.model is None else str(args.model),
        host=_host(args.host),
        port=_integer("--port", args.port, *PORTS),
        token=_token(args.token),
        max_batch_size=_integer("--max-batch-size", args.max_batch_size, 1),
        batch_timeout=_seconds("--batch-timeout", args.batch_timeout, zero=True),
        num_beams=None if args.beams is None else _integer("--beams", args.beams, 1),
        threads=None if args.threads is None else _integer("--threads", args.threads, 1),
        timeout=_seconds("--timeout", args.timeout, zero=False),
        read_timeout=_seconds("--read-timeout", args.read_timeout, zero=False),
        max_body_bytes=_integer("--max-body-bytes", args.max_body_bytes, 1),
    )
    folder, name, fallback = _model(options.model or None)
    return replace(options, model=folder, model_name=name, fallback=fallback)


def startup_line(options: ServeOptions) -> str:
    """The line the server prints as it starts: the model it serves, where, and on what address.

    >>> print(startup_line(ServeOptions("/m/g2t", "127.0.0.1", 8000, None, 16, 0.05, None, None,
    ...                                 120.0, 10.0, 65536, "graph2text-webnlg-smollm2")))
    Graph2Text server: model graph2text-webnlg-smollm2 (/m/g2t) on http://127.0.0.1:8000
    """
    host = f"[{options.host}]" if ":" in options.host else options.host
    line = (
        f"Graph2Text server: model {options.model_name or options.model} ({options.model}) "
        f"on http://{host}:{options.port}"
    )
    return f"{line}; {options.fallback}" if options.fallback else line


def exposure_warning(host: str, token: str | None) -> str | None:
    """The warning line for a server reachable beyond this machine with no token, else ``None``.

    >>> exposure_warning("127.0.0.1", None) is None, exposure_warning("0.0.0.0", "t") is None
    (True, True)
    >>> print(exposure_warning("0.0.0.0", None))  # doctest: +ELLIPSIS
    WARNING: serving on 0.0.0.0 with no token: anyone who can reach this port can use ...
    """
    if token or host in LOOPBACK_HOSTS:
        return None
    return (
        f"WARNING: serving on {host} with no token: anyone who can reach this port can use "
        f"/predict and /docs; pass --token or set {TOKEN_VARIABLE}"
    )
