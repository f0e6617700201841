"""How the costs grow with the graph: MetaQA and disjoint renamed copies of it, in a Bolt server.

Graphs of about 10^5, 10^6 and 10^7 triples are MetaQA's knowledge base (133,582 triples) and
``N - 1`` copies of it whose every entity name carries the copy's number (``"Heat #7"``), so the
degree distribution stays MetaQA's. They are loaded copy by copy into one ArcadeDB server (its
Bolt plugin; ``arcadedb-embedded``) with the batched loader, and the search indexes are created
(a full-text index on the names, a vector index on G-Retriever's node vectors). At each size the
first ``--questions`` MetaQA dev 2-hop questions (about the original copy, whose node texts have
vectors; the other copies are distractors the server holds) are timed on the Bolt store:

- entity linking of a misspelt topic name (the fuzzy path: the full-text index's exact terms
  and one-edit spellings, then the in-memory rule; a refusal is timed like a link);
- one FastToG Local Community Search step from the topic entity;
- one ToG expansion step (the topic's neighbours, grouped by relation);
- one G-Retriever retrieval (the region read by Cypher with its stored vectors, PCST here);

with the round trips each one sends, the client's and the server's memory, and the load rate;
and, once per size, the schema discovery ``--kg bolt://...`` runs on a graph it opens
(``schema_s``: :func:`~kgcore.graph.schema.discover_schema` and the mappings chosen from it).
In-memory figures (linking, LCS) are taken in a child process for the sizes up to
``--memory-max-copies`` copies.

Loading 10^7 triples takes long on two cores: the server's database is kept in ``--out`` and a
later run resumes with the copies not yet loaded. A new copy is written with the loader's
``mode="create"`` (its names merged, its relationships created); a copy cut short is written
again with ``MERGE``, which adds nothing twice.

The copies are disjoint graphs, but a harder case for fuzzy linking than a real graph of the
same size: every copy's names hold the original's words, so each word's entries in the
full-text index grow with the copies (a real graph's vocabulary grows instead), and a copy's
name is a close rival of the original (``"jane seymour 7"`` is 92 by ``ratio`` from
``"jane seymour"``), so more misspellings are refused at larger sizes (``link_refused``).

Sizes can be measured in separate runs, each on its own ``--out`` database, and merged into one
results file with ``--merge`` (the rows of the other sizes already there are kept; a size
measured again replaces its row). Each row records the load that led to it in its run
(``load_triples``, ``load_s``); ``load_tps`` is over all the rows.

One line of figures per size, then (and written to ``--results``)::

    scale max_triples=N link_ratio=R lcs_ratio=R gretriever_ratio=R client_mem_ratio=R load_tps=T

the ratios of the p50 latencies and the client memory at the largest size reached to those at
the smallest.

Example
-------
``.venv/bin/python benchmarks/scale.py --copies 1,8,75``
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

import arcadedb  # noqa: E402  (the launcher beside this script)

from kgcore.community.lcs import LCSConfig, local_community_search  # noqa: E402
from kgcore.exceptions import EntityNotFoundError  # noqa: E402
from kgcore.graph.label_mapping import LabelMapping, mapping_for  # noqa: E402
from kgcore.graph.loaders import read_triples  # noqa: E402
from kgcore.graph.memory import InMemoryGraphStore  # noqa: E402
from kgcore.graph.neo4j_loader import write_triples_to_neo4j  # noqa: E402
from kgcore.graph.neo4j_store import DEFAULT_MAPPING, Neo4jGraphStore  # noqa: E402
from kgcore.graph.schema import discover_schema  # noqa: E402
from kgcore.gretriever.retriever import GRetriever  # noqa: E402
from kgcore.gretriever.store_vectors import write_embeddings  # noqa: E402
from kgcore.linking import link_entity_details  # noqa: E402
from kgcore.types import Triple  # noqa: E402
from kgeval.datasets import default_data_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = default_data_dir() / "metaqa"
LABEL = "Entity"
MAPPING = replace(
    DEFAULT_MAPPING,
    node_label=LABEL,
    search_property="search",
    fulltext_index=f"{LABEL}[search]",
    vector_index=f"{LABEL}[embedding]",
)


def copy_of(triples: Sequence[Triple], number: int) -> Iterator[tuple[str, str, str]]:
    """Copy ``number`` of the graph: copy 0 is the graph, copy k renames every entity."""
    if number == 0:
        yield from ((h, r, t) for h, r, t in triples)
        return
    suffix = f" #{number}"
    yield from ((h + suffix, r, t + suffix) for h, r, t in triples)


def misspelt(name: str, rng: random.Random) -> str:
    """``name`` with two neighbouring letters swapped (the fuzzy path of linking)."""
    letters = [i for i in range(1, len(name) - 2) if name[i].isalpha() and name[i + 1].isalpha()]
    if not letters:
        return name.lower()
    i = rng.choice(letters)
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]


def misspellings(asked: Sequence[tuple[str, str]], seed: int = 0) -> list[str]:
    """The topic entity of each (question, entity) of ``asked``, misspelt (:func:`misspelt`)
    from one draw seeded ``seed``: seed 0 gives the names every size is timed on (and that
    ``scale_link_check.py`` checks), seed 1 those of the warm-up pass."""
    rng = random.Random(seed)
    return [misspelt(entity, rng) for _, entity in asked]


def memory_copies(base: Sequence[Triple], copies: int) -> InMemoryGraphStore:
    """An in-memory store of the first ``copies`` copies of ``base`` (:func:`copy_of`)."""
    store = InMemoryGraphStore()
    for number in range(copies):
        store.add_triples(copy_of(base, number))
    return store


def questions(count: int) -> list[tuple[str, str]]:
    """(question, topic entity) of the first ``count`` MetaQA dev 2-hop questions."""
    found = []
    for line in (DATA / "dev_2hop.txt").read_text(encoding="utf-8").splitlines():
        question = line.split("\t", 1)[0]
        if "[" in question and "]" in question:
            found.append((question, question[question.index("[") + 1 : question.index("]")]))
        if len(found) == count:
            break
    return found


def timed(fn: Callable[[], Any], store: Any = None) -> tuple[float, int]:
    """Milliseconds ``fn`` took, and the round trips it sent (``store`` counts them)."""
    if store is not None:
        store.reset_round_trips()
    started = time.perf_counter()
    fn()
    elapsed = (time.perf_counter() - started) * 1000
    return elapsed, (store.round_trips if store is not None else 0)


def p50_p95(values: Sequence[float]) -> tuple[float, float]:
    return statistics.median(values), float(np.percentile(values, 95))


def rss_mb(pid: int | None = None) -> float:
    return psutil.Process(pid or os.getpid()).memory_info().rss / 2**20


def link_or_refuse(store: Any, name: str) -> str:
    """The node ``name`` links to, or ``"(refused)"``: a refusal is timed like a link (it
    does the same work)."""
    try:
        return link_entity_details(store, name).node
    except EntityNotFoundError:
        return "(refused)"


def tog_step(store: Any, entity: str) -> dict[tuple[str, bool], int]:
    """ToG's expansion of one entity: its neighbours, grouped by (relation, direction)."""
    groups: dict[tuple[str, bool], int] = {}
    for triple in store.neighbors_batch([entity]).get(entity, ()):
        key = (triple.relation, triple.head == entity)
        groups[key] = groups.get(key, 0) + 1
    return groups


def measure_bolt(
    store: Neo4jGraphStore, asked: list[tuple[str, str]], embedder: Any
) -> dict[str, float]:
    """Latencies (p50/p95 ms) and round trips of the four steps on the Bolt store."""
    retriever = GRetriever(store=store, embedder=embedder)
    figures: dict[str, list[float]] = {k: [] for k in ("link", "lcs", "tog", "gretriever")}
    trips: dict[str, list[int]] = {k: [] for k in figures}

    def steps(question: str, entity: str, name: str) -> tuple[tuple[str, Callable[[], Any]], ...]:
        """The four timed steps of one question (``name``: its topic, misspelt)."""
        return (
            ("link", lambda: link_or_refuse(store, name)),
            ("lcs", lambda: local_community_search(store, [entity], LCSConfig(), seed=0)),
            ("tog", lambda: tog_step(store, entity)),
            ("gretriever", lambda: retriever.retrieve(question, topic_entities=[entity])),
        )

    # Warm up with one untimed pass over the questions: the server's caches and JIT, and the
    # embedding model's kernels for each new input length (a first pass of the questions took
    # 448 ms per retrieval at 10^5 triples against 52 ms once warm), so every size is timed in
    # the steady state a running service is in.
    for (question, entity), name in zip(asked, misspellings(asked, seed=1), strict=True):
        for _, fn in steps(question, entity, name):
            fn()
    refused = 0
    for (question, entity), name in zip(asked, misspellings(asked), strict=True):
        for key, fn in steps(question, entity, name):
            if key == "link":
                store.reset_round_trips()
                started = time.perf_counter()
                refused += fn() == "(refused)"
                ms, rt = (time.perf_counter() - started) * 1000, store.round_trips
            else:
                ms, rt = timed(fn, store)
            figures[key].append(ms)
            trips[key].append(rt)
    out: dict[str, float] = {"link_refused": float(refused)}
    for key, values in figures.items():
        out[f"{key}_p50_ms"], out[f"{key}_p95_ms"] = p50_p95(values)
        out[f"{key}_round_trips"] = statistics.mean(trips[key])
    return out


def _memory_child(copies: int, asked: list[tuple[str, str]], queue: Any) -> None:
    base = [Triple(*t) for t in read_triples(DATA / "kb.txt", progress=False)]
    started = time.perf_counter()
    store = memory_copies(base, copies)
    load = time.perf_counter() - started
    link, lcs = [], []
    for (_, entity), name in zip(asked, misspellings(asked), strict=True):
        link.append(timed(lambda n=name: link_or_refuse(store, n))[0])
        lcs.append(timed(lambda e=entity: local_community_search(store, [e], LCSConfig()))[0])
    queue.put(
        {
            "memory_load_s": load,
            "memory_mb": rss_mb(),
            "memory_link_p50_ms": p50_p95(link)[0],
            "memory_lcs_p50_ms": p50_p95(lcs)[0],
        }
    )


def measure_memory(copies: int, asked: list[tuple[str, str]]) -> dict[str, float]:
    """The in-memory store's figures for ``copies`` copies, from a child process."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_memory_child, args=(copies, asked, queue))
    child.start()
    result: dict[str, float] = queue.get()
    child.join()
    return result


def create_indexes(server: arcadedb.Server, dimensions: int) -> None:
    """ArcadeDB's SQL for the full-text and vector indexes (Neo4j: ``kgqa load
    --create-indexes``)."""
    for command in (
        f"CREATE PROPERTY {LABEL}.search IF NOT EXISTS STRING",
        f"CREATE INDEX IF NOT EXISTS ON {LABEL} (search) FULL_TEXT",
        f"CREATE PROPERTY {LABEL}.embedding IF NOT EXISTS ARRAY_OF_FLOATS",
        f"CREATE INDEX IF NOT EXISTS ON {LABEL} (embedding) LSM_VECTOR METADATA "
        f'{{"dimensions": {dimensions}, "similarity": "COSINE"}}',
    ):
        arcadedb.sql(server, command)


def schema_seconds(store: Neo4jGraphStore) -> float:
    """Seconds to discover ``store``'s schema and choose its mapping (as ``open_discovered``
    does), and to write the label mapping a graph of the user's own schema would get."""
    started = time.perf_counter()
    schema = discover_schema(store)
    chosen = mapping_for(schema)
    LabelMapping.from_schema(schema)
    seconds = time.perf_counter() - started
    found = f"{len(schema.labels)} labels, {len(schema.relationships)} relationship types"
    print(f"schema: {seconds:.2f} s, {found}; read as {type(chosen).__name__}", flush=True)
    return seconds


def row_line(figures: dict[str, float]) -> str:
    """One size's figures as a ``scale k=v ...`` line (keys sorted)."""
    return "scale " + " ".join(f"{k}={v:.1f}" for k, v in sorted(figures.items()))


def read_rows(path: Path) -> dict[int, dict[str, float]]:
    """The per-size rows of an earlier results file, by their number of triples.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "scale.txt"
    ...     _ = path.write_text("scale link_p50_ms=30.9 triples=133582.0\\n"
    ...                         "scale max_triples=133582 link_ratio=1.00\\n")
    ...     read_rows(path)
    {133582: {'link_p50_ms': 30.9, 'triples': 133582.0}}
    """
    rows: dict[int, dict[str, float]] = {}
    if not path.exists():
        return rows
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("scale ") or line.startswith("scale max_triples="):
            continue
        figures = {k: float(v) for k, v in (item.split("=", 1) for item in line.split()[1:])}
        rows[int(figures["triples"])] = figures
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", default="1,8,75", help="sizes, in copies of MetaQA")
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=20_000)
    parser.add_argument("--heap", default="8g", help="the server's Java heap")
    parser.add_argument("--memory-max-copies", type=int, default=8)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "scale")
    parser.add_argument(
        "--results", type=Path, default=ROOT / "benchmarks" / "results" / "scale.txt"
    )
    parser.add_argument(
        "--merge",
        action="store_true",
        help="keep the rows of other sizes already in --results (sizes measured in separate "
        "runs, each on its own --out database) and take the ratios over all of them",
    )
    args = parser.parse_args(argv)
    sizes = sorted({int(c) for c in args.copies.split(",")})

    from kgcore.embeddings import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    base = [Triple(*t) for t in read_triples(DATA / "kb.txt", progress=False)]
    asked = questions(args.questions)
    server = arcadedb.start(args.out / "arcadedb", heap=args.heap)
    print(f"ArcadeDB at {server.uri}, started in {server.start_seconds:.1f} s", flush=True)
    rows_by_size = read_rows(args.results) if args.merge else {}
    loaded_now, load_seconds = 0, 0.0
    indexed = False
    try:
        # Counting 10^7 relationships of a resumed database takes longer than a read's default
        # deadline (10 s); the timed steps take milliseconds either way.
        store = Neo4jGraphStore(
            **server.conn, mapping=MAPPING, name_search="fulltext", query_timeout=600
        )
        present = store.num_triples()
        done, partial = divmod(present, len(base))
        print(f"resuming: {done} copies loaded" + (" and part of one" if partial else ""))
        for target in sizes:
            loaded_before, seconds_before = loaded_now, load_seconds
            while done < target:
                started = time.perf_counter()
                # A copy cut short is written again with MERGE; a new one is created.
                mode = "merge" if partial else "create"
                partial = 0
                summary = write_triples_to_neo4j(
                    store,
                    copy_of(base, done),
                    batch_size=args.batch_size,
                    progress=False,
                    validate=False,
                    mode=mode,
                )
                load_seconds += time.perf_counter() - started
                loaded_now += summary.triples_read
                print(f"copy {done}: {summary}", flush=True)
                done += 1
            if not indexed:
                # The original copy's texts get vectors (the questions are about it); the
                # other copies are distractors. Both steps are idempotent: a resumed run
                # finishes what an interrupted one began.
                names = sorted({n for t in base for n in (t.head, t.tail)})
                print(write_embeddings(store, embedder, names=names, progress=False), flush=True)
                create_indexes(server, int(embedder.embed(["x"]).shape[1]))
                store.refresh_names()
                indexed = True
            gc.collect()
            figures = measure_bolt(store, asked, embedder)
            figures["schema_s"] = schema_seconds(store)
            figures["triples"] = float(store.num_triples())
            figures["client_mb"] = rss_mb()
            figures["server_mb"] = rss_mb(server.process.pid)
            # The load that led to this size in this run (0 when it was loaded before).
            figures["load_triples"] = float(loaded_now - loaded_before)
            figures["load_s"] = load_seconds - seconds_before
            if target <= args.memory_max_copies:
                figures.update(measure_memory(target, asked))
            rows_by_size[int(figures["triples"])] = figures
            print(row_line(figures), flush=True)
        store.close()
    finally:
        server.stop()
    rows = [rows_by_size[size] for size in sorted(rows_by_size)]
    lines = [row_line(row) for row in rows]
    first, last = rows[0], rows[-1]
    loaded = sum(row.get("load_triples", 0.0) for row in rows)
    seconds = sum(row.get("load_s", 0.0) for row in rows)
    tps = loaded / seconds if seconds else float("nan")
    summary_line = (
        f"scale max_triples={int(last['triples'])} "
        f"link_ratio={last['link_p50_ms'] / first['link_p50_ms']:.2f} "
        f"lcs_ratio={last['lcs_p50_ms'] / first['lcs_p50_ms']:.2f} "
        f"gretriever_ratio={last['gretriever_p50_ms'] / first['gretriever_p50_ms']:.2f} "
        f"client_mem_ratio={last['client_mb'] / first['client_mb']:.2f} "
        f"load_tps={tps:.0f}"
    )
    print(summary_line)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text("\n".join([*lines, summary_line]) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
