"""Test graphs shared by the Neo4j store tests: synthetic, adversarial and a MetaQA slice."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import lru_cache

import networkx as nx

from kgcore.graph.memory import InMemoryGraphStore
from kgcore.types import Triple
from tests.support.paths import SHARED_DATA

METAQA = SHARED_DATA / "metaqa"


def memory_store(triples: Iterable[Sequence[str]]) -> InMemoryGraphStore:
    """An in-memory store whose nodes are inserted in name order.

    The server store breaks fuzzy-search ties by name; inserting the nodes sorted makes the
    in-memory store break them the same way, so ``search_nodes`` can be compared exactly.
    """
    rows = [Triple(*t) for t in triples]
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(sorted({n for h, _, t in rows for n in (h, t)}))
    graph.add_edges_from((h, t, r) for h, r, t in rows)
    return InMemoryGraphStore(graph)


def synthetic_triples(seed: int = 7, nodes: int = 240, edges: int = 1400) -> list[Triple]:
    """A seeded graph with the awkward cases: hubs, self-loops, both directions, duplicates."""
    rng = random.Random(seed)
    stems = ["Heat", "heat", "The Matrix", "the  matrix", "Alien", "Aliens", "Élan", "Zoë", "1999"]
    names = stems + [
        f"{rng.choice(['Film', 'Person', 'Tag', 'Year'])} {i:03d}" for i in range(nodes)
    ]
    relations = ["directed_by", "starred_actors", "has_tags", "release_year", "written_by"]
    triples = [
        Triple(rng.choice(names), rng.choice(relations), rng.choice(names)) for _ in range(edges)
    ]
    hub = "Hub Year"
    triples += [Triple(n, "release_year", hub) for n in rng.sample(names, 120)]
    triples += [Triple(hub, "has_tags", n) for n in rng.sample(names, 40)]
    triples += [
        Triple("Heat", "directed_by", "heat"),
        Triple("heat", "directed_by", "Heat"),  # the same relation both ways
        Triple("Heat", "written_by", "heat"),
        Triple("Alien", "has_tags", "Alien"),  # a self-loop
        Triple("Alien", "has_tags", "Aliens"),
        Triple("Alien", "has_tags", "Aliens"),  # a duplicate
    ]
    return triples


def llamaindex_triples() -> list[Triple]:
    """Synthetic triples whose relations are plain identifiers (relationship types)."""
    return [t for t in synthetic_triples(seed=11, nodes=120, edges=600)]


@lru_cache(maxsize=1)
def _metaqa_full() -> InMemoryGraphStore | None:
    kb = METAQA / "kb.txt"
    return InMemoryGraphStore.from_file(kb, progress=False) if kb.is_file() else None


@lru_cache(maxsize=8)
def _metaqa_slice(seeds: tuple[str, ...], hops: int, cap: int) -> tuple[Triple, ...] | None:
    full = _metaqa_full()
    if full is None:
        return None
    frontier, seen = set(seeds), set(seeds)
    for _ in range(hops):
        frontier = {t.other(n) for n in frontier for t in full.neighbors(n, limit=64)} - seen
        seen |= frontier
    return tuple(full.triples_among(seen)[:cap])


def metaqa_slice(seeds: Sequence[str], hops: int = 2, cap: int = 40_000) -> list[Triple] | None:
    """The MetaQA triples within ``hops`` of ``seeds`` (``None`` without ../shared)."""
    found = _metaqa_slice(tuple(seeds), hops, cap)
    return None if found is None else list(found)


def metaqa_questions(count: int, hop: str = "2hop") -> list[tuple[str, str]]:
    """The first ``count`` dev questions with their [bracketed] topic entity, distinct entities."""
    path = METAQA / f"dev_{hop}.txt"
    found: list[tuple[str, str]] = []
    if not path.is_file():
        return found
    for line in path.read_text(encoding="utf-8").splitlines():
        question = line.split("\t", 1)[0]
        if "[" in question and "]" in question:
            entity = question[question.index("[") + 1 : question.index("]")]
            if all(entity != e for _, e in found):
                found.append((question, entity))
        if len(found) >= count:
            break
    return found


def metaqa_topic_entities(count: int, hop: str = "2hop") -> list[str]:
    """The first ``count`` distinct topic entities ([brackets]) of MetaQA's dev questions."""
    path = METAQA / f"dev_{hop}.txt"
    found: list[str] = []
    if not path.is_file():
        return found
    for line in path.read_text(encoding="utf-8").splitlines():
        question = line.split("\t", 1)[0]
        if "[" in question and "]" in question:
            entity = question[question.index("[") + 1 : question.index("]")]
            if entity not in found:
                found.append(entity)
        if len(found) >= count:
            break
    return found


def adversarial_names(count: int = 1000, seed: int = 1234) -> list[str]:
    """``count`` distinct hostile names: quotes, backslashes, braces, Cypher, unicode, 100 KB.

    Names a graph refuses at the door (blank, or holding a control character such as NUL,
    TAB or a newline: :func:`kgcore.validation.name_problem`) are written as their escapes
    (``"new\\nline"``); their refusal is tested with the loaders (``test_triple_doors``).
    """
    rng = random.Random(seed)
    fixed = [
        "'",
        '"',
        "`",
        "\\",
        "\\'",
        "{}",
        "{name: 'x'}",
        "$names",
        "$limit",
        "' OR 1=1 //",
        '") DETACH DELETE n //',
        "'}) MATCH (n) DETACH DELETE n //",
        "`) CREATE (x:Pwned) //",
        "MATCH (n) DETACH DELETE n",
        "CALL dbms.components()",
        "RETURN 1; MATCH (n) RETURN n",
        "UNWIND $names AS node",
        "/* comment */",
        "// comment",
        "\\u0000nul",
        "tab\\there",
        "new\\nline",
        "cr\\rreturn",
        "zero\u200bwidth",
        "\u202eright-to-left",
        "e\u0301 combining",
        "\u00e9 precomposed",
        "日本語の映画",
        "Ελληνικά",
        "עברית",
        "emoji 🎬🍿",
        "\U0001f600",
        "\uffff",
        "\ue000 private",
        " leading space",
        "trailing space ",
        "null",
        "NULL",
        "true",
        "0",
        "-1",
        "1e309",
        "NaN",
        "[1, 2, 3]",
        "a|b|c",
        "a,b;c",
        "%s %d {0}",
        "<script>alert(1)</script>",
        "../../etc/passwd",
    ]
    pieces = [
        "'",
        '"',
        "`",
        "\\",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        "$",
        ";",
        ":",
        "//",
        "/*",
        "*/",
        " MATCH ",
        " DETACH DELETE ",
        " CREATE ",
        " MERGE ",
        " SET ",
        " RETURN ",
        " CALL ",
        " LOAD CSV ",
        " UNION ",
        "\\u0000",
        "\\n",
        "\u00e9",
        "\u4e2d",
        "\U0001f525",
        "\u202e",
        "x",
        "Q",
        "7",
    ]
    names: list[str] = []
    seen: set[str] = set()

    def add(name: str) -> None:
        if name not in seen:
            seen.add(name)
            names.append(name)

    for name in fixed:
        add(name)
    for i in range(10):  # 100 KB names
        body = "".join(rng.choice(pieces) for _ in range(2_000))
        big = (body * (100_000 // len(body) + 1))[:100_000]
        add(big)
        if i == 0:
            add(big[:-1] + "\\")  # the same 100 KB but for the last character
    while len(names) < count:
        add("".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) + f"#{len(names)}")
    return names[:count]


def adversarial_triples(names: Sequence[str], seed: int = 99) -> list[Triple]:
    """Every name used at least once as a head and as a tail; relations hostile too."""
    rng = random.Random(seed)
    relations = [
        "rel",
        "re'l",
        're"l',
        "r`el",
        "r\\el",
        "r}) DETACH DELETE n //",
        "関係",
        "' MERGE (x:Pwned) //",
    ]
    order = list(names)
    rng.shuffle(order)
    triples = [
        Triple(order[i], relations[i % len(relations)], order[(i + 1) % len(order)])
        for i in range(len(order))
    ]
    triples += [
        Triple(rng.choice(names), rng.choice(relations), rng.choice(names)) for _ in range(500)
    ]
    return triples
