"""Build the small PathQuestion / WebQSP / CWQ fixtures in ``tests/fixtures/data``.

Unit tests must not read the full benchmark sets, so this keeps, per set, the first
:data:`QUESTIONS` rows of each dev file (copied byte for byte) and only the triples around them:

- every triple within :data:`HOPS` hops of a topic entity in the undirected graph; in the
  WebQSP/CWQ graph an unnamed Freebase compound node (``m.0abc``, ``g.11xyz``) is not a hop;
- every triple on a gold path from a topic entity to an answer (``meta.gold_paths`` where the
  row has it, otherwise the shortest topic-answer paths, at most :data:`MAX_PATH_HOPS` hops).

A fixture graph larger than :data:`MAX_TRIPLES` keeps the gold-path triples and fills the rest
hop by hop, sampling (seeded) the first hop that does not fit. The output is sorted
``head|relation|tail`` lines, so a rerun writes the same bytes; the source folder's
``LICENSE*`` files are copied beside it.

Example::

    .venv/bin/python scripts/make_dataset_fixtures.py            # ../shared/data -> fixtures
    .venv/bin/python scripts/make_dataset_fixtures.py --data DIR --out tests/fixtures/data
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgcore.graph.loaders import read_triples
from kgeval.datasets import default_data_dir

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = 3
HOPS = 2
MAX_PATH_HOPS = 4
MAX_TRIPLES = 1400
SEED = 20261125
COMPOUND = re.compile(r"^[mg]\.[0-9a-z_]+$")

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class FixtureSet:
    """One fixture graph and the dev files whose first questions it serves."""

    folder: str
    kb: str
    dev_files: tuple[str, ...]
    free_compounds: bool


SETS = (
    FixtureSet("pathquestion", "kb_PQ-3H.txt", ("dev_PQ-3H.jsonl",), free_compounds=False),
    FixtureSet("pathquestion", "kb_PQL-3H.txt", ("dev_PQL-3H.jsonl",), free_compounds=False),
    FixtureSet("webqsp_cwq", "kb.txt", ("dev_webqsp.jsonl", "dev_cwq.jsonl"), free_compounds=True),
)


class Graph:
    """An undirected view of a triple list: node -> indices of its triples."""

    def __init__(self, triples: Sequence[Triple], free_compounds: bool) -> None:
        self.triples = triples
        self.free_compounds = free_compounds
        self.incident: dict[str, list[int]] = {}
        for index, (head, _, tail) in enumerate(triples):
            self.incident.setdefault(head, []).append(index)
            if tail != head:
                self.incident.setdefault(tail, []).append(index)

    def cost(self, node: str) -> int:
        """What stepping onto ``node`` costs: 0 for a free compound node, else one hop."""
        return 0 if self.free_compounds and COMPOUND.match(node) else 1

    def other(self, index: int, node: str) -> str:
        head, _, tail = self.triples[index]
        return tail if head == node else head

    def distances(self, sources: Iterable[str], limit: int) -> dict[str, int]:
        """Hop distance (compound nodes free) from the nearest source, up to ``limit``."""
        best = {s: 0 for s in sources if s in self.incident}
        queue = [(0, s) for s in sorted(best)]
        while queue:
            dist, node = heapq.heappop(queue)
            if dist > best[node]:
                continue
            for index in self.incident[node]:
                other = self.other(index, node)
                step = dist + self.cost(other)
                if step <= limit and step < best.get(other, limit + 1):
                    best[other] = step
                    heapq.heappush(queue, (step, other))
        return best

    def levels(self, sources: Iterable[str], limit: int) -> dict[int, int]:
        """Triple index -> hops needed to reach it, for the triples within ``limit`` hops."""
        dist = self.distances(sources, limit)
        found: dict[int, int] = {}
        for node in sorted(dist):
            for index in self.incident[node]:
                level = dist[node] + self.cost(self.other(index, node))
                if level <= limit:
                    found[index] = min(level, found.get(index, level))
        return found

    def shortest_path_triples(self, source: str, target: str) -> set[int]:
        """Triples on any shortest ``source``-``target`` path of at most MAX_PATH_HOPS hops."""
        if source not in self.incident or target not in self.incident or source == target:
            return set()
        forward = self.distances([source], MAX_PATH_HOPS)
        if target not in forward:
            return set()
        backward = self.distances([target], MAX_PATH_HOPS)
        total, end = forward[target], self.cost(target)
        on_path: set[int] = set()
        for node in sorted(forward):
            for index in self.incident[node]:
                other = self.other(index, node)
                # backward[other] counts the nodes after ``node`` but the target itself.
                if other in backward and forward[node] + backward[other] + end == total:
                    on_path.add(index)
        return on_path


def gold_path_triples(graph: Graph, by_key: dict[Triple, int], row: dict[str, Any]) -> set[int]:
    """The triples of ``meta.gold_paths``, or of the shortest topic-answer paths."""
    paths = row.get("meta", {}).get("gold_paths")
    if paths:
        return {i for path in paths for i in _path_steps(by_key, path)}
    return {
        i
        for topic in row["topic_entities"]
        for answer in row["answers"]
        for i in graph.shortest_path_triples(topic, answer)
    }


def _path_steps(by_key: dict[Triple, int], path: Sequence[str]) -> list[int]:
    """``[e0, r1, e1, r2, e2, ...]`` -> the KB triples of each step, either direction."""
    steps = []
    for k in range(0, len(path) - 2, 2):
        head, relation, tail = path[k], path[k + 1], path[k + 2]
        for key in ((head, relation, tail), (tail, relation, head)):
            if key in by_key:
                steps.append(by_key[key])
    return steps


def select(levels: dict[int, int], required: set[int], cap: int) -> set[int]:
    """The required triples, then whole hop levels, sampling the first level that overflows."""
    chosen = set(required)
    rng = random.Random(SEED)
    for level in sorted(set(levels.values())):
        layer = sorted(i for i, lv in levels.items() if lv == level and i not in chosen)
        room = cap - len(chosen)
        if room <= 0:
            break
        chosen.update(layer if len(layer) <= room else rng.sample(layer, room))
    return chosen


def first_rows(path: Path) -> list[str]:
    """The first QUESTIONS non-empty lines of a JSONL file, verbatim."""
    with path.open(encoding="utf-8") as handle:
        lines = [line for line in handle if line.strip()]
    return [line if line.endswith("\n") else line + "\n" for line in lines[:QUESTIONS]]


def build(spec: FixtureSet, data_dir: Path, out_dir: Path) -> tuple[int, int]:
    """Write one fixture graph and its dev files; return (questions, triples)."""
    source = data_dir / spec.folder
    triples = sorted(set(read_triples(source / spec.kb, progress=False)))
    plain: list[Triple] = [(t.head, t.relation, t.tail) for t in triples]
    graph = Graph(plain, spec.free_compounds)
    by_key = {t: i for i, t in enumerate(plain)}
    target = out_dir / spec.folder
    target.mkdir(parents=True, exist_ok=True)
    levels: dict[int, int] = {}
    required: set[int] = set()
    count = 0
    for name in spec.dev_files:
        rows = first_rows(source / name)
        (target / name).write_text("".join(rows), encoding="utf-8")
        for line in rows:
            row = json.loads(line)
            for index, level in graph.levels(row["topic_entities"], HOPS).items():
                levels[index] = min(level, levels.get(index, level))
            required |= gold_path_triples(graph, by_key, row)
            count += 1
    for licence in sorted(source.glob("LICENSE*")):
        (target / licence.name).write_bytes(licence.read_bytes())
    chosen = select(levels, required, MAX_TRIPLES)
    lines = sorted("|".join(plain[i]) + "\n" for i in chosen)
    (target / spec.kb).write_text("".join(lines), encoding="utf-8")
    return count, len(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="shared data (KGQA_DATA)")
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "fixtures" / "data")
    args = parser.parse_args(argv)
    data_dir = args.data or default_data_dir()
    for spec in SETS:
        questions, kept = build(spec, data_dir, args.out)
        print(f"{spec.folder}/{spec.kb}: {questions} questions, {kept} triples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
