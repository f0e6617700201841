from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgcore.exceptions import GraphLoadError
from kgcore.graph import GraphStore, InMemoryGraphStore, read_triples
from kgcore.types import Triple, neighbor_sort_key


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("kb.txt", "a|likes|b\nb|likes|c\n"),
        ("kb.tsv", "head\trelation\ttail\na\tlikes\tb\nb\tlikes\tc\n"),
        ("kb.csv", 'a,likes,b\n"b",likes,c\n'),
        (
            "kb.jsonl",
            json.dumps(["a", "likes", "b"])
            + "\n"
            + json.dumps({"head": "b", "relation": "likes", "tail": "c"})
            + "\n",
        ),
    ],
)
def test_every_format_reads_the_same_triples(tmp_path: Path, name: str, body: str) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    assert list(read_triples(path, progress=False)) == [
        Triple("a", "likes", "b"),
        Triple("b", "likes", "c"),
    ]


def test_csv_keeps_commas_inside_quotes(tmp_path: Path) -> None:
    path = tmp_path / "kb.csv"
    path.write_text('"Crouching Tiger, Hidden Dragon",directed_by,Ang Lee\n', encoding="utf-8")
    assert list(read_triples(path, progress=False)) == [
        Triple("Crouching Tiger, Hidden Dragon", "directed_by", "Ang Lee")
    ]


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "kb.txt"
    path.write_text("a|r|b\nonly|two\n", encoding="utf-8")
    with pytest.raises(GraphLoadError, match=r"kb.txt:2: malformed pipe triple: expected 3 fields"):
        InMemoryGraphStore.from_file(path, progress=False)


def test_missing_file_and_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(GraphLoadError, match="not found"):
        InMemoryGraphStore.from_file(tmp_path / "nope.txt")
    odd = tmp_path / "kb.xyz"
    odd.write_text("a|r|b\n")
    with pytest.raises(GraphLoadError, match="cannot tell the triple format"):
        InMemoryGraphStore.from_file(odd)


def test_duplicates_are_stored_once_and_counts(movie_store: InMemoryGraphStore) -> None:
    before = movie_store.num_triples()
    movie_store.add_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
    assert movie_store.num_triples() == before == 13
    assert movie_store.num_nodes() == 14
    assert isinstance(movie_store, GraphStore)


def test_neighbors_come_in_canonical_order_with_direction(movie_store: InMemoryGraphStore) -> None:
    triples = movie_store.neighbors("Joseph L. Mankiewicz")
    assert [t.other("Joseph L. Mankiewicz") for t in triples] == [
        "All About Eve",
        "Cleopatra",
        "Guys and Dolls",
    ]
    assert all(t.direction_from("Joseph L. Mankiewicz") == "in" for t in triples)
    keys = [neighbor_sort_key("Cleopatra", t) for t in movie_store.neighbors("Cleopatra")]
    assert keys == sorted(keys)
    assert movie_store.neighbors("Cleopatra", limit=2) == movie_store.neighbors("Cleopatra")[:2]
    assert movie_store.neighbors("nobody") == []


def test_neighbors_batch_matches_single_calls(movie_store: InMemoryGraphStore) -> None:
    batch = movie_store.neighbors_batch(["Cleopatra", "Giant"], limit=2)
    assert dict(batch) == {
        "Cleopatra": movie_store.neighbors("Cleopatra", 2),
        "Giant": movie_store.neighbors("Giant", 2),
    }


def test_triples_among_only_inside_the_set(movie_store: InMemoryGraphStore) -> None:
    assert movie_store.triples_among(["Cleopatra", "Elizabeth Taylor", "Giant"]) == [
        Triple("Cleopatra", "starred_actors", "Elizabeth Taylor"),
        Triple("Giant", "starred_actors", "Elizabeth Taylor"),
    ]


def test_search_nodes_exact_then_normalised_then_fuzzy(movie_store: InMemoryGraphStore) -> None:
    assert movie_store.search_nodes("Cleopatra", limit=1) == ["Cleopatra"]
    assert movie_store.search_nodes("  all   about EVE ", limit=1) == ["All About Eve"]
    assert movie_store.search_nodes("Cleopatre", limit=3)[0] == "Cleopatra"


def test_metaqa_graph_loads_completely(metaqa_kb: Path) -> None:
    store = InMemoryGraphStore.from_file(metaqa_kb, progress=False)
    assert store.num_triples() == 133_582
    assert store.num_nodes() == 43_234


def test_search_results_are_cached_and_forgotten_when_the_graph_changes() -> None:
    store = InMemoryGraphStore.from_triples([("The Matrix", "directed_by", "Lana Wachowski")])
    first = store.search_nodes("matrx", limit=2)
    first.append("mutated by the caller")
    assert store.search_nodes("matrx", limit=2) == ["The Matrix", "Lana Wachowski"]
    store.add_triples([("Matrix", "has_genre", "Action")])
    assert store.search_nodes("matrx", limit=2)[0] == "Matrix"
