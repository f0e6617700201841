"""``search_nodes`` on the in-memory store after one added triple, on MetaQA.

Loads MetaQA's knowledge base, asks ``search_nodes`` for the first ``--names`` misspelt dev
topic entities (warming the caches), then adds one triple and asks again: once with a triple
between known nodes, once with a triple naming a new film and director. Before issue 37 any
``add_triples`` emptied every cache, so the first search after it rebuilt the name index of
43,234 names. Last line::

    memory_add search_ms=… after_known_ms=… after_new_ms=… first_after_new_ms=… add_ms=…

(medians over the names; ``first_after_new_ms`` is the first search after the new names, the
one that rebuilt the index before; ``add_ms`` is the mean time of the two writes).
"""

from __future__ import annotations

import argparse
import statistics
import time

from kgcore.graph import InMemoryGraphStore
from kgeval.datasets import default_data_dir, load_metaqa


def timed_searches(store: InMemoryGraphStore, names: list[str]) -> list[float]:
    """Milliseconds of each ``search_nodes`` call."""
    times = []
    for name in names:
        started = time.perf_counter()
        store.search_nodes(name, limit=5)
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--names", type=int, default=20, help="topic entities to search")
    args = parser.parse_args()
    data = default_data_dir()
    store = InMemoryGraphStore.from_file(data / "metaqa" / "kb.txt", progress=False)
    questions = load_metaqa("2hop", args.names).examples
    names = [q.topic_entities[0][:-1] + "x" for q in questions]  # one letter wrong: fuzzy path
    cold = timed_searches(store, names)
    warm = timed_searches(store, names)
    film = questions[0].topic_entities[0]
    started = time.perf_counter()
    store.add_triples([(film, "benchmark_link", store.neighbors(film)[0].other(film))])
    known_ms = (time.perf_counter() - started) * 1000
    after_known = timed_searches(store, names)
    started = time.perf_counter()
    store.add_triples([("Benchmark Film 37", "directed_by", "Benchmark Director 37")])
    new_ms = (time.perf_counter() - started) * 1000
    after_new = timed_searches(store, names)
    print(f"first search (cold): median {statistics.median(cold):.2f} ms")
    print(f"repeated search (cached): median {statistics.median(warm):.3f} ms")
    print(f"after one triple between known nodes: median {statistics.median(after_known):.3f} ms")
    print(
        f"after one triple with new names: median {statistics.median(after_new):.2f} ms, "
        f"first {after_new[0]:.2f} ms"
    )
    print(
        f"memory_add search_ms={statistics.median(cold):.2f} "
        f"after_known_ms={statistics.median(after_known):.3f} "
        f"after_new_ms={statistics.median(after_new):.2f} first_after_new_ms={after_new[0]:.2f} "
        f"add_ms={(known_ms + new_ms) / 2:.2f}"
    )


if __name__ == "__main__":
    main()
