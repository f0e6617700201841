"""Time one Local Community Search step (no LLM) on MetaQA topic entities.

For the 300 dev 2-hop and 300 dev 3-hop topic entities, times subgraph sampling, community
detection and coarse pruning with each algorithm, and reports median and p90 milliseconds and
the subgraph sizes. Target on the 2-core dev machine: Louvain median <= 10 ms, p90 <= 50 ms.

Usage::

    .venv/bin/python benchmarks/lcs.py [--algorithms louvain,leiden,...] [--limit N]

The last line reads ``lcs louvain_median_ms=<number> louvain_p90_ms=<number>``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from kgcore.community import ALGORITHMS, LCSConfig, local_community_search
from kgcore.graph import InMemoryGraphStore
from kgcore.linking import link_entity
from kgeval.datasets import load_metaqa


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--limit", type=int, default=300, help="questions per hop")
    parser.add_argument("--max-community-size", type=int, default=4)
    args = parser.parse_args(argv)

    examples = load_metaqa("2hop", args.limit).examples + load_metaqa("3hop", args.limit).examples
    started = time.perf_counter()
    store = InMemoryGraphStore.from_file(load_metaqa("1hop", 1).graph_path, progress=False)
    print(
        f"graph: {store.num_nodes()} nodes, {store.num_triples()} triples, "
        f"loaded in {time.perf_counter() - started:.1f}s"
    )
    entities = [link_entity(store, e.topic_entities[0]) for e in examples]
    # Warm the neighbour cache once (a long-running retriever has it warm too).
    for entity in entities:
        local_community_search(store, [entity], LCSConfig(), exclude=(), seed=0, leaf_slots=3)
    summary = {}
    for algorithm in args.algorithms.split(","):
        config = LCSConfig(algorithm=algorithm, max_community_size=args.max_community_size)
        times, cpu, nodes, triples, found = [], [], [], [], []
        for entity in entities:
            t0, c0 = time.perf_counter(), time.process_time()
            step = local_community_search(store, [entity], config, exclude=(), seed=0, leaf_slots=3)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            nodes.append(step.subgraph_nodes)
            triples.append(step.subgraph_triples)
            found.append(step.communities_found)
        median, p90 = statistics.median(times), float(np.percentile(times, 90))
        summary[algorithm] = (median, p90)
        print(
            f"{algorithm:13s} median={median:7.2f} ms  p90={p90:7.2f} ms  "
            f"max={max(times):8.1f} ms  "
            f"(cpu median={statistics.median(cpu):.2f} ms)  "
            f"subgraph nodes median={statistics.median(nodes):.0f} max={max(nodes)}  "
            f"triples median={statistics.median(triples):.0f}  "
            f"communities median={statistics.median(found):.0f}",
            flush=True,
        )
    median, p90 = summary.get("louvain", (float("nan"), float("nan")))
    print(f"lcs louvain_median_ms={median:.2f} louvain_p90_ms={p90:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
