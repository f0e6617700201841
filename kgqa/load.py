"""``kgqa load``: load a triple file into Neo4j.

Example
-------
.. code-block:: console

    $ export NEO4J_URI=neo4j://localhost:7687 NEO4J_USERNAME=neo4j NEO4J_PASSWORD=secret
    $ kgqa load ../shared/data/metaqa/kb.txt
"""

from __future__ import annotations

import argparse
from typing import Any


def _load(args: argparse.Namespace) -> int:
    from kgcore.graph.open import write_file_to_neo4j

    summary = write_file_to_neo4j(
        args.kg or "neo4j", args.path, batch_size=args.batch_size, progress=not args.quiet
    )
    print(summary)
    return 0


def add_subcommand(commands: Any) -> None:
    """Register ``kgqa load`` on the CLI's subparsers."""
    load = commands.add_parser("load", help="load a triple file into Neo4j")
    load.add_argument("path", help="triple file (h|r|t, .tsv, .csv, .jsonl)")
    load.add_argument("--kg", help="bolt:// or neo4j:// URI (default: NEO4J_URI and friends)")
    load.add_argument("--batch-size", type=int, default=5000)
    load.add_argument("--quiet", action="store_true", help="no progress bar")
    load.set_defaults(handler=_load)
