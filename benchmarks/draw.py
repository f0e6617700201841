"""Time drawing 2,000-node results (FastToG, G-Retriever, ToG paths) to PNG.

Large results draw the chains (or prized nodes, or kept paths) and their neighbours only, up
to ``max_nodes``, so a picture takes about the same time whatever the result's size. Target on
the 2-core dev machine: each picture in under 3 seconds.

Usage::

    .venv/bin/python benchmarks/draw.py [--nodes 2000] [--repeat 3]

The last line reads ``draw fasttog_s=<median> gretriever_s=<median> paths_s=<median> nodes=<n>``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kgcore.gretriever.result import GRetrieverResult
from kgcore.methods.fasttog import ChainCommunity, FastToGResult
from kgcore.methods.result import MethodResult
from kgcore.types import Triple


def fasttog_result(nodes: int) -> FastToGResult:
    """Three chains of three communities, and pruned candidates up to ``nodes`` nodes."""
    chains = []
    for c in range(3):
        chain = []
        previous = "Topic"
        for depth in range(1, 4):
            members = tuple(f"c{c}d{depth}n{k}" for k in range(3))
            link = Triple(previous, "r", members[0])
            inside = (Triple(members[0], "s", members[1]), Triple(members[1], "s", members[2]))
            chain.append(ChainCommunity(c, depth, members, inside, (link,), ""))
            previous = members[-1]
        chains.append(chain)
    anchors = [m for chain in chains for community in chain for m in community.nodes]
    pruned = []
    for i in range((nodes - len(anchors) - 1) // 4):
        members = tuple(f"p{i}n{k}" for k in range(4))
        link = Triple(anchors[i % len(anchors)], "r", members[0])
        pruned.append(ChainCommunity(i % 3, 1 + i % 3, members, (), (link,), ""))
    return FastToGResult(
        question="a large FastToG result",
        answer="c0d3n2",
        method="fasttog",
        topic_entities=["Topic"],
        start=ChainCommunity(-1, 0, ("Topic",), (), (), ""),
        chains=chains,
        pruned=pruned,
    )


def gretriever_result(nodes: int) -> GRetrieverResult:
    """A tree of ``nodes`` nodes (node i joined to i // 3), a few prized nodes and edges."""
    edges = tuple(Triple(f"n{i // 3}", "r", f"n{i}") for i in range(1, nodes))
    return GRetrieverResult(
        question="a large G-Retriever subgraph",
        node_ids=tuple(range(nodes)),
        node_texts=tuple(f"n{i}" for i in range(nodes)),
        edge_ids=tuple(range(nodes - 1)),
        edges=edges,
        edge_endpoints=tuple((i // 3, i) for i in range(1, nodes)),
        node_prizes=tuple(3.0 - (i % 3) if i % 97 == 0 else 0.0 for i in range(nodes)),
        edge_prizes=tuple(1.0 if i % 53 == 0 else 0.0 for i in range(nodes - 1)),
        objective=1.0,
        edge_cost=0.5,
        searched_nodes=nodes,
        searched_edges=nodes - 1,
        seeds=("n0",),
    )


def paths_result(nodes: int) -> MethodResult:
    """Three depths of three kept triples, and dropped candidates up to ``nodes`` nodes."""
    explored = []
    frontier = ["Topic"]
    per_depth = (nodes - 10) // 3
    for depth in range(1, 4):
        kept = [[frontier[k % len(frontier)], "r", f"d{depth}k{k}"] for k in range(3)]
        pruned = [[frontier[0], "r", f"d{depth}p{k}"] for k in range(per_depth)]
        explored.append({"depth": depth, "kept": kept, "pruned": pruned})
        frontier = [t[2] for t in kept]
    result = MethodResult(question="a large ToG result", answer="d3k0", method="tog")
    result.extra.update(topic_entities=["Topic"], explored=explored)
    return result


def median_seconds(draw: Callable[[Path], Path], folder: Path, repeat: int) -> float:
    times = []
    for i in range(repeat):
        started = time.perf_counter()
        draw(folder / f"picture{i}.png")
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    fasttog = fasttog_result(args.nodes)
    gretriever = gretriever_result(args.nodes)
    paths = paths_result(args.nodes)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        figures = {
            "fasttog_s": median_seconds(fasttog.draw, out, args.repeat),
            "gretriever_s": median_seconds(gretriever.draw, out, args.repeat),
            "paths_s": median_seconds(paths.draw, out, args.repeat),
        }
    for name, seconds in figures.items():
        print(f"{name[:-2]}: {seconds:.2f} s per picture (median of {args.repeat})")
    line = " ".join(f"{name}={seconds:.2f}" for name, seconds in figures.items())
    print(f"draw {line} nodes={args.nodes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
