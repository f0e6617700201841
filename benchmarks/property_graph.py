"""MetaQA as a typed property graph, read through the discovered mapping (issue 62).

``load`` writes MetaQA's knowledge base into ArcadeDB (its Bolt plugin, ``arcadedb-embedded``) the
way a user's own Neo4j graph would hold it: movies (``:Movie {title}``) with their
``release_year``, ``in_language``, ``has_imdb_rating`` and ``has_imdb_votes`` as properties
(lists where a title has several), people (``:Person {name}``), genres (``:Genre {name}``) and
tags (``:Tag {name}``) as their own labels, and one relationship type per relation
(``directed_by``, ``written_by``, ``starred_actors``, ``has_genre``, ``has_tags``, from the
movie). The relation names are MetaQA's, so the two layouts differ only in their structure.
Nothing here tells the methods the layout: ``kgqa eval --kg bolt://...`` discovers it.

``run`` starts the server (loading it once; the database is kept under ``--root``), runs
``kgqa eval`` for each method on MetaQA's 2-hop and 3-hop dev questions over it (resumable
traces under ``benchmarks/results/property_graph/``), and ``report`` writes
``benchmarks/results/property_graph.md``: each method on both layouts, the ``triples`` rows
being the cross-graph report's own traces (the in-memory triple layout, same questions).

.. code-block:: console

    .venv/bin/python benchmarks/property_graph.py run --methods fasttog --n 50
    .venv/bin/python benchmarks/property_graph.py report
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import arcadedb  # noqa: E402  (benchmarks/arcadedb.py)

KB = ROOT.parent / "shared" / "data" / "metaqa" / "kb.txt"
OUT = ROOT / "benchmarks" / "results" / "property_graph"
TRIPLE_TRACES = ROOT / "benchmarks" / "results" / "kgqa_dev"
REPORT = ROOT / "benchmarks" / "results" / "property_graph.md"
#: Relation -> label of its tail (a relationship), or None (a property of the movie).
RELATIONS = {
    "directed_by": "Person",
    "written_by": "Person",
    "starred_actors": "Person",
    "has_genre": "Genre",
    "has_tags": "Tag",
    "release_year": None,
    "in_language": None,
    "has_imdb_rating": None,
    "has_imdb_votes": None,
}
#: The methods of the report (each row where its traces are there).
REPORTED = ("fasttog", "tog", "gretriever")
NAME = {"Movie": "title", "Person": "name", "Genre": "name", "Tag": "name"}
BATCH = 2000


def read_kb() -> tuple[dict[str, dict[str, Any]], dict[str, set[str]], list[tuple[str, str, str]]]:
    """Movies with their properties, the other labels' names, and the relationships."""
    movies: dict[str, dict[str, Any]] = {}
    others: dict[str, set[str]] = defaultdict(set)
    edges: list[tuple[str, str, str]] = []
    for line in KB.read_text(encoding="utf-8").splitlines():
        head, relation, tail = line.split("|")
        props = movies.setdefault(head, {})
        label = RELATIONS[relation]
        if label is None:
            value: Any = int(tail) if relation == "release_year" and tail.isdigit() else tail
            props.setdefault(relation, []).append(value)
        else:
            others[label].add(tail)
            edges.append((head, relation, tail))
    for props in movies.values():
        for key, values in list(props.items()):
            props[key] = values[0] if len(values) == 1 else sorted(set(values), key=str)
    return movies, others, edges


def load(server: Any) -> None:
    """Write MetaQA into ``server`` as a property graph, unless it is there already."""
    import neo4j

    movies, others, edges = read_kb()
    with neo4j.GraphDatabase.driver(server.uri, auth=(server.username, server.password)) as d:
        with d.session(database=server.database) as session:
            have = session.run("MATCH (m:Movie) RETURN count(m)").single()[0]
            if have == len(movies):
                print(f"already loaded: {have:,} movies", file=sys.stderr)
                return
            started = time.monotonic()
            for label, prop in NAME.items():
                session.run(f"CREATE INDEX IF NOT EXISTS FOR (n:{label}) ON (n.{prop})").consume()
            rows = [{"title": t, **p} for t, p in sorted(movies.items())]
            for i in range(0, len(rows), BATCH):
                session.run(
                    "UNWIND $rows AS row CREATE (m:Movie) SET m = row", rows=rows[i : i + BATCH]
                ).consume()
            for label, names in sorted(others.items()):
                ordered = sorted(names - (set(movies) if label == "Movie" else set()))
                for i in range(0, len(ordered), BATCH):
                    session.run(
                        f"UNWIND $names AS x CREATE (:{label} {{name: x}})",
                        names=ordered[i : i + BATCH],
                    ).consume()
            by_type: dict[str, list[list[str]]] = defaultdict(list)
            for head, relation, tail in edges:
                by_type[relation].append([head, tail])
            for relation, pairs in sorted(by_type.items()):
                label = RELATIONS[relation]
                for i in range(0, len(pairs), BATCH):
                    session.run(
                        "UNWIND $pairs AS p MATCH (m:Movie {title: p[0]}) "
                        f"MATCH (x:{label} {{name: p[1]}}) CREATE (m)-[:{relation}]->(x)",
                        pairs=pairs[i : i + BATCH],
                    ).consume()
            print(
                f"loaded {len(movies):,} movies, {sum(map(len, others.values())):,} other "
                f"nodes, {len(edges):,} relationships in {time.monotonic() - started:.0f} s",
                file=sys.stderr,
            )


def run(args: argparse.Namespace) -> None:
    from kgqa.cli import main

    server = arcadedb.start(Path(args.root), heap="3g")
    try:
        load(server)
        spec = (
            f"bolt://{server.username}:{server.password}@{server.uri.split('://')[1]}"
            f"/{server.database}"
        )
        OUT.mkdir(parents=True, exist_ok=True)
        for method in args.methods.split(","):
            for hop in ("2hop", "3hop"):
                print(f"== {method} on metaqa:{hop}:{args.n} ({time.strftime('%H:%M')})",
                      file=sys.stderr)  # fmt: skip
                code = main(["eval", "--method", method, "--data", f"metaqa:{hop}:{args.n}",
                             "--kg", spec, "--out", str(OUT), "--no-plots", "--quiet"])  # fmt: skip
                if code:
                    raise SystemExit(code)
    finally:
        server.stop()
    report(args)


def _rows(trace: Path, n: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    return rows[:n]


def report(args: argparse.Namespace) -> None:
    """The table of both layouts, from the committed traces."""
    from kgeval.metrics import answer_f1, hit_at_1, wilson_interval

    lines = [
        "# MetaQA as a property graph, beside the triple layout (issue 62)",
        "",
        "`property`: MetaQA written into ArcadeDB as labelled nodes with properties "
        "(`benchmarks/property_graph.py`), read over Bolt through the discovered mapping; "
        "`triples`: the cross-graph report's in-memory rows on the same questions (first "
        f"{args.n} dev questions, local Qwen2.5-Coder-1.5B). hit@1 with its 95% Wilson interval.",
        "",
        "| method | data | layout | n | hit@1 | F1 | LLM calls |",
        "|---|---|---|---|---|---|---|",
    ]
    for method in REPORTED:
        for hop in ("2hop", "3hop"):
            for layout, folder in (("triples", TRIPLE_TRACES), ("property", OUT)):
                trace = folder / f"{method}__metaqa-{hop}.jsonl"
                if not trace.exists():
                    continue
                rows = _rows(trace, args.n)
                hits = sum(hit_at_1(r["prediction"], r["answers"]) for r in rows)
                f1 = sum(answer_f1(r["prediction"], r["answers"], r.get("answered"))
                         for r in rows) / len(rows)  # fmt: skip
                calls = sum(r.get("llm_calls", 0) for r in rows) / len(rows)
                low, high = wilson_interval(hits, len(rows))
                lines.append(
                    f"| {method} | metaqa-{hop} | {layout} | {len(rows)} | "
                    f"{hits / len(rows):.2f} ({low:.2f}-{high:.2f}) | {f1:.2f} | {calls:.1f} |"
                )
    REPORT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("load", "run", "report"))
    parser.add_argument("--root", default=str(ROOT / "benchmarks" / "out" / "property_db"))
    parser.add_argument("--methods", default="fasttog")
    parser.add_argument("--n", type=int, default=50)
    args = parser.parse_args()
    if args.command == "load":
        server = arcadedb.start(Path(args.root), heap="3g")
        try:
            load(server)
        finally:
            server.stop()
    elif args.command == "run":
        run(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
