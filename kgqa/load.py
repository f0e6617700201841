"""``kgqa load``: load a triple file into Neo4j, create its search indexes, write its vectors.

Example
-------
.. code-block:: console

    $ export NEO4J_URI=neo4j://localhost:7687 NEO4J_USERNAME=neo4j NEO4J_PASSWORD=secret
    $ kgqa load ../shared/data/metaqa/kb.txt --create-indexes --embed
    $ kgqa load --embed              # after adding triples: embeds only the new texts
    $ kgqa load kb.txt --write-timeout 300   # a slow server: allow 5 minutes per batch

Each write (a batch, the schema or an index statement) has a deadline, ``--write-timeout``
(the store's ``write_timeout``, 60 s by default): a server that stalls or dies ends the load
with exit status 2 and a message saying how many triples were written and that running the
same command again resumes.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgqa.common import kg_argument
from kgqa.door import check_graph, whole_number


def write_timeout(text: str) -> float:
    """``--write-timeout``: seconds in (0, 3600] (the store's ``write_timeout`` range).

    >>> write_timeout("2.5")
    2.5
    >>> write_timeout("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be in (0, 3600] seconds, got '0'
    """
    from kgcore.graph.neo4j_store import MAX_TIMEOUT_S

    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_TIMEOUT_S:
        raise argparse.ArgumentTypeError(f"must be in (0, {MAX_TIMEOUT_S:g}] seconds, got {text!r}")
    return seconds


def _load(args: argparse.Namespace) -> int:
    if not args.path and not (args.create_indexes or args.embed):
        raise ConfigurationError(
            "kgqa load needs a triple file, or --create-indexes / --embed for a loaded graph"
        )
    from kgcore.graph.neo4j_loader import validate_source
    from kgcore.graph.open import open_neo4j, write_file_to_neo4j

    spec = args.kg or "neo4j"
    check_graph(spec)  # NEO4J_URI's port and host, the neo4j module: before the file is read
    timeouts = {} if args.write_timeout is None else {"write_timeout": args.write_timeout}
    if args.path and args.create_indexes:
        validate_source(args.path)  # a bad file: refused before the indexes are made too
    store = open_neo4j(spec, **timeouts) if args.create_indexes or args.embed else None
    try:
        embedder = None
        dimensions = None
        if args.embed:
            from kgcore.embeddings import default_embedder

            embedder = default_embedder()
            dimensions = int(embedder.embed(["probe"]).shape[1])
        if store is not None and args.create_indexes:
            # Before any triple: a server that makes its indexes another way (ArcadeDB)
            # refuses here, with nothing written.
            from kgcore.graph.neo4j_indexes import create_indexes

            created = create_indexes(store, vector_dimensions=dimensions)
            print("indexes: " + ", ".join(created))
        if args.path:
            summary = write_file_to_neo4j(
                spec,
                args.path,
                batch_size=args.batch_size,
                progress=not args.quiet,
                **timeouts,
            )
            print(summary)
            if store is not None:
                store.refresh_names()  # the names the triples brought
        if store is not None and embedder is not None:
            from kgcore.gretriever.store_vectors import write_embeddings

            print(write_embeddings(store, embedder, progress=not args.quiet))
    finally:
        if store is not None:
            store.close()
    return 0


def add_subcommand(commands: Any) -> None:
    """Register ``kgqa load`` on the CLI's subparsers."""
    load = commands.add_parser(
        "load",
        help="load a triple file into Neo4j (and create its indexes, write its vectors)",
        description=(
            "Load a triple file into Neo4j with batched MERGE (a rerun adds nothing). "
            "--create-indexes creates the full-text index entity linking searches on a large "
            "graph (and, with --embed, the vector index); --embed writes G-Retriever's "
            "vectors of every node and relation text that has none yet (the offline "
            "all-MiniLM-L6-v2), so questions read them instead of embedding the graph."
        ),
    )
    load.add_argument(
        "path",
        nargs="?",
        help="triple file (h|r|t, .tsv, .csv, .jsonl); optional with --create-indexes or --embed",
    )
    load.add_argument(
        "--kg",
        type=kg_argument,
        help="bolt:// or neo4j:// URI (default: NEO4J_URI and friends)",
    )
    load.add_argument("--batch-size", type=whole_number(1), default=5000, help="triples per write")
    load.add_argument(
        "--write-timeout",
        type=write_timeout,
        metavar="SECONDS",
        help="deadline of each write (a batch, the schema, an index): a server that stalls "
        "or dies ends the load within it, saying how to resume (default: 60)",
    )
    load.add_argument(
        "--create-indexes",
        action="store_true",
        help="create the full-text (and, with --embed, vector) index (Neo4j 5 DDL)",
    )
    load.add_argument(
        "--embed", action="store_true", help="write G-Retriever's vectors into the database"
    )
    load.add_argument("--quiet", action="store_true", help="no progress bar")
    load.set_defaults(handler=_load)
