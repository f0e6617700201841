"""``InMemoryGraphStore.add_triples`` changes only the caches its triples touch (issue 37)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

import kgcore.graph.memory as memory
from kgcore.graph import InMemoryGraphStore

BASE = [
    ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    ("Cleopatra", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "directed_by", "George Stevens"),
    ("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
    ("The Matrix", "directed_by", "Lana Wachowski"),
]
QUERIES = ["Cleopatra", "cleopatra", "giant", "Matrx", "George Stevens", "Eve", "new film", "zz"]


def counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of ``memory.<name>`` (a module-level function the store calls)."""
    calls = [0]
    real: Callable[..., object] = getattr(memory, name)

    def spy(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(memory, name, spy)
    return calls


def assert_same_as_built_at_once(
    store: InMemoryGraphStore, triples: Sequence[tuple[str, str, str]]
) -> None:
    fresh = InMemoryGraphStore.from_triples(triples)
    assert store.num_triples() == fresh.num_triples()
    assert store.num_nodes() == fresh.num_nodes()
    assert store._name_index() == fresh._name_index()  # same names, same tie-breaking order
    nodes = sorted(fresh.graph)
    for node in nodes:
        assert store.neighbors(node) == fresh.neighbors(node), node
    assert store.triples_among(nodes) == fresh.triples_among(nodes)
    for text in QUERIES + nodes:
        for limit in (1, 3):
            assert store.search_nodes(text, limit) == fresh.search_nodes(text, limit), text


def test_an_unrelated_neighbour_list_survives_and_touched_ones_are_rebuilt() -> None:
    store = InMemoryGraphStore.from_triples(BASE)
    giant = store.neighbors("Giant")
    cleopatra = store.neighbors("Cleopatra")
    store.add_triples([("Cleopatra", "release_year", "1963")])
    assert store.neighbors("Giant") is giant  # the cached list itself: not rebuilt
    assert store.neighbors("Cleopatra") is not cleopatra
    assert [t.tail for t in store.neighbors("Cleopatra")] == [
        "1963",
        "Elizabeth Taylor",
        "Joseph L. Mankiewicz",
    ]
    assert_same_as_built_at_once(store, [*BASE, ("Cleopatra", "release_year", "1963")])


def test_new_names_are_appended_to_the_index_not_rebuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    store = InMemoryGraphStore.from_triples(BASE)
    store.search_nodes("Giant")  # builds the name index
    normalised = counting(monkeypatch, "normalize_name")
    store.add_triples([("New Film", "directed_by", "George Stevens")])
    assert store.search_nodes("new film", limit=1) == ["New Film"]
    assert normalised[0] <= 4  # the new name and the query, never every node again
    assert_same_as_built_at_once(store, [*BASE, ("New Film", "directed_by", "George Stevens")])
    store.add_triples([("Zed", "r", "ZED"), ("zed ", "r", "Giant")])  # new, one normal form
    assert store.search_nodes("zed", limit=3) == ["Zed", "ZED", "zed "]
    assert_same_as_built_at_once(
        store,
        [
            *BASE,
            ("New Film", "directed_by", "George Stevens"),
            ("Zed", "r", "ZED"),
            ("zed ", "r", "Giant"),
        ],
    )


def test_searches_survive_writes_that_cannot_change_them(monkeypatch: pytest.MonkeyPatch) -> None:
    store = InMemoryGraphStore.from_triples(BASE)
    ranked = counting(monkeypatch, "rank_names")
    assert store.search_nodes("Cleopatra", limit=1) == ["Cleopatra"]  # equal names only
    assert store.search_nodes("Matrx", limit=2)[0] == "The Matrix"  # fuzzy
    assert ranked[0] == 2

    store.add_triples([("Giant", "starred_actors", "Joseph L. Mankiewicz")])  # no new name
    store.search_nodes("Cleopatra", limit=1)
    store.search_nodes("Matrx", limit=2)
    assert ranked[0] == 2  # both remembered

    store.add_triples([("Matrix", "has_genre", "Action")])  # new names
    assert store.search_nodes("Cleopatra", limit=1) == ["Cleopatra"]
    assert ranked[0] == 2  # its answer holds only names equal to "cleopatra": kept
    assert store.search_nodes("Matrx", limit=2)[0] == "Matrix"
    assert ranked[0] == 3  # a fuzzy search a new name could change: asked again

    store.add_triples([("CLEOPATRA", "release_year", "1963")])  # normalises like the query
    assert store.search_nodes("Cleopatra", limit=2) == ["Cleopatra", "CLEOPATRA"]
    assert store.search_nodes("Cleopatra", limit=1) == ["Cleopatra"]
    assert ranked[0] == 5


def test_triple_count_follows_the_new_edges_only() -> None:
    store = InMemoryGraphStore.from_triples(BASE)
    assert store.num_triples() == 6
    store.add_triples([BASE[0], ("a", "r", "b"), ("a", "r", "b"), ("a", "s", "b")])
    assert store.num_triples() == 8


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_interleaved_reads_and_writes_equal_a_store_built_at_once(seed: int) -> None:
    rng = random.Random(seed)
    names = ["Alpha", "alpha", "Beta", "Gamma Ray", "gamma  ray", "Delta", "Epsilon", "Zeta"]
    names += [f"Node {i}" for i in range(20)]
    triples = [(rng.choice(names), rng.choice("rst"), rng.choice(names)) for _ in range(120)]
    store = InMemoryGraphStore()
    added: list[tuple[str, str, str]] = []
    start = 0
    while start < len(triples):
        stop = start + rng.randint(1, 12)
        store.add_triples(triples[start:stop])
        added += triples[start:stop]
        for node in rng.sample(names, 5):
            store.neighbors(node)
        for text in rng.sample(QUERIES + names, 5):
            store.search_nodes(text, rng.choice([1, 2, 5]))
        store.num_triples()
        start = stop
    assert_same_as_built_at_once(store, added)
