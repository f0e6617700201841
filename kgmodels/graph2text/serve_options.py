"""The Graph2Text server's command-line options, shared by ``python -m
kgmodels.graph2text.serve`` and ``kgqa g2t serve`` (importing them loads no server library).

Example
-------
>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_serve_arguments(parser)
>>> parser.parse_args(["m", "--port", "9000"]).port
9000
"""

from __future__ import annotations

import argparse

from kgmodels.graph2text.serve_limits import MAX_BODY_BYTES

#: The model served when none is named (the small model trained here).
DEFAULT_MODEL = "models/graph2text-webnlg-small"


def add_serve_arguments(
    parser: argparse.ArgumentParser, default_model: str = DEFAULT_MODEL
) -> None:
    """Add the server's options to ``parser``."""
    parser.add_argument("model", nargs="?", default=default_model, help="folder or Hub id")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--token", help="bearer token (or KG_G2T_TOKEN); /healthz stays open")
    parser.add_argument("--max-batch-size", type=int, default=16)
    parser.add_argument("--batch-timeout", type=float, default=0.05, help="seconds")
    parser.add_argument(
        "--beams", type=int, help="beam search width, one candidate (default: the model folder's)"
    )
    parser.add_argument("--threads", type=int, help="torch threads per worker")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    parser.add_argument(
        "--max-body-bytes",
        type=_positive_int,
        default=MAX_BODY_BYTES,
        help=f"largest request body; bigger ones get 413 (default {MAX_BODY_BYTES})",
    )


def _positive_int(text: str) -> int:
    """An integer of at least 1 (argparse reports anything else as a usage error, exit 2)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value
