"""Fuzzy linking on a scale database agrees with the in-memory rule (issue 35's check at scale).

``benchmarks/neo4j_agreement.py`` checks 1,000 names on MetaQA alone (10^5 triples), where the
full-text candidate caps rarely bind. This script checks the regime where they do: the
misspelt topic names that ``benchmarks/scale.py`` times are linked on its kept database of
``--copies`` copies (Bolt store, ``name_search="fulltext"``) and on an in-memory store of the
same copies, which ranks every name. Each name must give the same node or the same refusal.
Run it after any change to the Bolt store's candidate search, alone on the machine: the
in-memory store of 85 copies (11.35M triples) takes about 3 minutes and 8 GB to build.

The last line (also written to ``--results`` when given) is
``scale_link_check copies=C triples=T names=N same=S``; the names that differ are printed
above it.

Example
-------
``.venv/bin/python benchmarks/scale_link_check.py --copies 85 --out benchmarks/out/scale``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import arcadedb  # noqa: E402
from scale import (  # noqa: E402
    DATA,
    MAPPING,
    ROOT,
    link_or_refuse,
    memory_copies,
    misspellings,
    questions,
)

from kgcore.graph.loaders import read_triples  # noqa: E402
from kgcore.graph.neo4j_store import Neo4jGraphStore  # noqa: E402
from kgcore.types import Triple  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=85, help="copies in the database")
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--heap", default="8g", help="the server's Java heap")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "scale")
    parser.add_argument("--results", type=Path, default=None)
    args = parser.parse_args(argv)
    names = misspellings(questions(args.questions))

    server = arcadedb.start(args.out / "arcadedb", heap=args.heap)
    try:
        store = Neo4jGraphStore(
            **server.conn, mapping=MAPPING, name_search="fulltext", query_timeout=600
        )
        triples = store.num_triples()
        base = [Triple(*t) for t in read_triples(DATA / "kb.txt", progress=False)]
        if triples != args.copies * len(base):
            raise SystemExit(
                f"the database in {args.out} holds {triples:,} triples, not {args.copies} "
                f"copies of MetaQA ({args.copies * len(base):,}): run benchmarks/scale.py "
                f"--copies {args.copies} --out {args.out} first"
            )
        on_bolt = [link_or_refuse(store, name) for name in names]
        store.close()
    finally:
        server.stop()
    memory = memory_copies(base, args.copies)
    in_memory = [link_or_refuse(memory, name) for name in names]
    same = 0
    for name, bolt, mem in zip(names, on_bolt, in_memory, strict=True):
        if bolt == mem:
            same += 1
        else:
            print(f"{name!r}: Bolt {bolt!r}, in memory {mem!r}")
    line = f"scale_link_check copies={args.copies} triples={triples} names={len(names)} same={same}"
    print(line)
    if args.results is not None:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(line + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
