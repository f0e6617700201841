"""Benchmark the Neo4j store: round trips and time per Local Community Search step, load rate.

Loads MetaQA's knowledge base (134k triples) into a Bolt server with the batched loader, then
runs one Local Community Search step (FastToG's retrieval step, without the LLM) around each of
the first ``--entities`` topic entities of MetaQA's 2-hop dev questions, on the server and on the
embedded in-memory store, checking that both give the same candidate communities.

The server is ``$NEO4J_URI`` when set (with ``NEO4J_USERNAME``/``NEO4J_PASSWORD``/
``NEO4J_DATABASE``), else a temporary ArcadeDB started from the ``arcadedb-embedded`` wheel (dev
extra) on 127.0.0.1. A round trip is one Cypher query in its own managed read transaction.

For comparison, a store that asks once per visited node (as the reference FastToG code does)
would need one query per node whose neighbours are read, plus one per node for its edges: the
benchmark counts those nodes too ("per-node queries").

The last line is ``neo4j round_trips_per_lcs=<number> load_triples_per_s=<number>``.

Example
-------
``.venv/bin/python benchmarks/neo4j_store.py --entities 50``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import arcadedb  # noqa: E402  (the launcher beside this script)

from kgcore.community.lcs import LCSConfig, local_community_search  # noqa: E402
from kgcore.community.sampling import sample_neighborhood  # noqa: E402
from kgcore.graph.memory import InMemoryGraphStore  # noqa: E402
from kgcore.graph.neo4j_loader import write_triples_to_neo4j  # noqa: E402
from kgcore.graph.neo4j_store import Neo4jGraphStore  # noqa: E402
from kgeval.datasets import default_data_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = default_data_dir() / "metaqa"


def topic_entities(path: Path, count: int, store: InMemoryGraphStore) -> list[str]:
    """The first ``count`` distinct [bracketed] topic entities that are in the graph."""
    found: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        question = line.split("\t", 1)[0]
        if "[" not in question or "]" not in question:
            continue
        entity = question[question.index("[") + 1 : question.index("]")]
        if entity not in found and store.has_node(entity):
            found.append(entity)
        if len(found) == count:
            break
    return found


def per_node_queries(step_subgraph: Any) -> int:
    """Queries a one-node-at-a-time store would send for the same sample.

    One per node whose neighbours were read (every node kept before the last hop), plus one per
    kept node to read the edges among them.
    """
    hops = step_subgraph.hops
    radius = max(hops.values(), default=0)
    expanded = sum(1 for hop in hops.values() if hop < radius) if radius else 0
    return expanded + len(step_subgraph.nodes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kb", type=Path, default=DATA / "kb.txt")
    parser.add_argument("--questions", type=Path, default=DATA / "dev_2hop.txt")
    parser.add_argument("--entities", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks" / "out" / "neo4j_store.json"
    )
    args = parser.parse_args(argv)

    arcade = None
    tmp = None
    start_seconds = 0.0
    if os.environ.get("NEO4J_URI"):
        conn: dict[str, Any] = {}  # the store reads NEO4J_* itself
        server = os.environ["NEO4J_URI"]
    else:
        tmp = Path(tempfile.mkdtemp(prefix="kg-arcadedb-"))
        arcade = arcadedb.start(tmp)
        conn, start_seconds = arcade.conn, arcade.start_seconds
        server = f"ArcadeDB at {conn['uri']} (started in {start_seconds:.1f} s)"
    print(f"server: {server}", flush=True)
    try:
        store = Neo4jGraphStore(**conn)
        summary = write_triples_to_neo4j(store, args.kb, batch_size=args.batch_size, progress=False)
        print(summary, flush=True)
        rerun = write_triples_to_neo4j(store, args.kb, batch_size=args.batch_size, progress=False)
        print(f"rerun: {rerun}", flush=True)

        started = time.perf_counter()
        memory = InMemoryGraphStore.from_file(args.kb, progress=False)
        memory_load = time.perf_counter() - started
        print(f"embedded store loaded in {memory_load:.1f} s", flush=True)
        assert store.num_nodes() == memory.num_nodes(), "node counts differ"
        assert store.num_triples() == memory.num_triples(), "triple counts differ"

        entities = topic_entities(args.questions, args.entities, memory)
        config = LCSConfig()
        # Warm up both (JIT on the server, neighbour caches in memory are per node anyway).
        local_community_search(store, [entities[-1]], config, seed=args.seed)
        rows = []
        for entity in entities:
            mem_step = local_community_search(memory, [entity], config, seed=args.seed)
            store.reset_round_trips()
            srv_step = local_community_search(store, [entity], config, seed=args.seed)
            lcs_round_trips = store.round_trips
            sampling = {}
            for name, which in (("server", store), ("embedded", memory)):
                started = time.perf_counter()
                sample_neighborhood(
                    which,
                    [entity],
                    radius=config.radius,
                    decay=config.decay,
                    max_nodes=config.max_subgraph_nodes,
                    max_neighbors_per_node=config.max_neighbors_per_node,
                    seed=args.seed,
                )
                sampling[name] = time.perf_counter() - started
            rows.append(
                {
                    "entity": entity,
                    "server_sampling_s": sampling["server"],
                    "embedded_sampling_s": sampling["embedded"],
                    "round_trips": lcs_round_trips,
                    "per_node_queries": per_node_queries(srv_step.subgraph),
                    "server_s": srv_step.seconds,
                    "embedded_s": mem_step.seconds,
                    "subgraph_nodes": srv_step.subgraph_nodes,
                    "same_candidates": srv_step.candidates == mem_step.candidates
                    and srv_step.subgraph == mem_step.subgraph,
                }
            )
        n = len(rows)
        round_trips = statistics.fmean(r["round_trips"] for r in rows)
        result = {
            "server": server,
            "server_start_s": start_seconds,
            "triples": summary.triples_read,
            "load_seconds": summary.seconds,
            "load_triples_per_s": summary.triples_per_s,
            "rerun_created": rerun.nodes_created + rerun.relationships_created,
            "rerun_seconds": rerun.seconds,
            "entities": n,
            "lcs_config": vars(config) if hasattr(config, "__dict__") else str(config),
            "round_trips_per_lcs": round_trips,
            "max_round_trips": max(r["round_trips"] for r in rows),
            "per_node_queries_per_lcs": statistics.fmean(r["per_node_queries"] for r in rows),
            "server_ms_per_lcs_mean": 1000 * statistics.fmean(r["server_s"] for r in rows),
            "server_ms_per_lcs_median": 1000 * statistics.median(r["server_s"] for r in rows),
            "embedded_ms_per_lcs_mean": 1000 * statistics.fmean(r["embedded_s"] for r in rows),
            "embedded_ms_per_lcs_median": 1000 * statistics.median(r["embedded_s"] for r in rows),
            "server_sampling_ms_mean": 1000
            * statistics.fmean(r["server_sampling_s"] for r in rows),
            "embedded_sampling_ms_mean": 1000
            * statistics.fmean(r["embedded_sampling_s"] for r in rows),
            "identical_steps": sum(r["same_candidates"] for r in rows),
            "steps": rows,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
        print(
            f"LCS steps on {n} MetaQA topic entities (radius {config.radius}): "
            f"{round_trips:.2f} round trips per step (max {result['max_round_trips']}; "
            f"a per-node store: {result['per_node_queries_per_lcs']:.1f}); "
            f"server {result['server_ms_per_lcs_mean']:.1f} ms mean / "
            f"{result['server_ms_per_lcs_median']:.1f} ms median per step, embedded "
            f"{result['embedded_ms_per_lcs_mean']:.1f} ms mean / "
            f"{result['embedded_ms_per_lcs_median']:.1f} ms median; identical candidates and "
            f"subgraphs on {result['identical_steps']}/{n}"
        )
        print(
            f"of which sampling (the store's part): server "
            f"{result['server_sampling_ms_mean']:.1f} ms, embedded "
            f"{result['embedded_sampling_ms_mean']:.1f} ms mean per step"
        )
        print(
            f"load: {summary.triples_read:,} triples in {summary.seconds:.1f} s; rerun created "
            f"{result['rerun_created']} in {rerun.seconds:.1f} s; details in {args.out}"
        )
        print(
            f"neo4j round_trips_per_lcs={round_trips:.2f} "
            f"load_triples_per_s={summary.triples_per_s:.0f}"
        )
        store.close()
    finally:
        if arcade is not None:
            arcade.stop()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
