"""Bad triple files fail clearly, no row is dropped silently, the memory store is thread-safe."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from kgcore.exceptions import GraphLoadError, InvalidSettingError
from kgcore.graph import InMemoryGraphStore, read_triples
from kgcore.types import Triple


def test_binary_file_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "kb.txt"
    path.write_bytes(b"a|r|b\n\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(GraphLoadError, match=rf"{path.name}:2: not UTF-8 text"):
        list(read_triples(path, progress=False))
    path.write_bytes(b"a|r|b\nc|r|d\n\x00\x00\x00\x01|r|x\n")
    with pytest.raises(GraphLoadError, match=rf"{path.name}:3: binary data"):
        list(read_triples(path, progress=False))


def test_non_utf8_file_names_file_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "kb.tsv"
    path.write_bytes("a\tr\tb\nCaf\u00e9\tr\tb\n".encode("latin-1"))
    with pytest.raises(GraphLoadError, match=r"kb.tsv:2: not UTF-8 text \(byte 0xe9 at column 4"):
        list(read_triples(path, progress=False))


def test_directory_is_reported_as_a_directory(tmp_path: Path) -> None:
    folder = tmp_path / "kb.txt"
    folder.mkdir()
    with pytest.raises(GraphLoadError, match="is a directory"):
        list(read_triples(folder, progress=False))


@pytest.mark.parametrize(
    ("suffix", "first"),
    [
        (".tsv", "Headhunters\tdirected_by\tMorten Tyldum"),
        (".csv", "Subject Matter,directed_by,Someone"),
        (".txt", "head|starred_actors|Someone"),
    ],
)
def test_a_first_row_that_merely_starts_like_a_header_is_data(
    tmp_path: Path, suffix: str, first: str
) -> None:
    path = tmp_path / f"kb{suffix}"
    path.write_text(first + "\n" + first.replace("directed_by", "x").replace("starred", "y") + "\n")
    triples = list(read_triples(path, progress=False))
    assert len(triples) == 2


@pytest.mark.parametrize(
    ("suffix", "header"),
    [(".tsv", "head\trelation\ttail"), (".csv", "Subject,Predicate,Object"), (".txt", "h|r|t")],
)
def test_an_exact_header_row_is_skipped(tmp_path: Path, suffix: str, header: str) -> None:
    path = tmp_path / f"kb{suffix}"
    sep = {"tsv": "\t", "csv": ",", "txt": "|"}[suffix[1:]]
    path.write_text(header + "\n" + sep.join(["Heat", "directed_by", "Michael Mann"]) + "\n")
    assert list(read_triples(path, progress=False)) == [
        Triple("Heat", "directed_by", "Michael Mann")
    ]


def test_byte_order_mark_is_stripped(tmp_path: Path) -> None:
    path = tmp_path / "kb.txt"
    path.write_bytes("\ufeffTitanic|directed_by|James Cameron\n".encode())
    store = InMemoryGraphStore.from_file(path, progress=False)
    assert store.has_node("Titanic")


def test_deeply_nested_jsonl_is_a_load_error(tmp_path: Path) -> None:
    path = tmp_path / "kb.jsonl"
    path.write_text('["a", "r", "b"]\n' + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(GraphLoadError, match=r"kb.jsonl:2: malformed jsonl triple"):
        list(read_triples(path, progress=False))


def test_add_triples_while_other_threads_read() -> None:
    store = InMemoryGraphStore.from_triples([(f"n{i}", "r", f"n{i + 1}") for i in range(200)])
    errors: list[BaseException] = []
    stop = threading.Event()

    def read() -> None:
        try:
            while not stop.is_set():
                store.neighbors_batch([f"n{i}" for i in range(0, 400, 7)], limit=5)
                store.triples_among([f"n{i}" for i in range(50)])
                store.search_nodes("n17", limit=2)
                store.num_triples()
        except BaseException as err:  # noqa: BLE001 - collected for the assertion
            errors.append(err)

    readers = [threading.Thread(target=read) for _ in range(4)]
    for thread in readers:
        thread.start()
    for batch in range(200):
        store.add_triples([(f"n{batch * 10 + j}", "s", f"m{batch}-{j}") for j in range(10)])
    stop.set()
    for thread in readers:
        thread.join()
    assert errors == []
    assert store.num_triples() == 200 + 2000
    assert Triple("n0", "s", "m0-0") in store.neighbors("n0")


def test_negative_neighbour_limit_is_refused() -> None:
    store = InMemoryGraphStore.from_triples([("a", "r", "b")])
    with pytest.raises(InvalidSettingError, match="got -1"):
        store.neighbors("a", limit=-1)
    with pytest.raises(InvalidSettingError):
        store.neighbors_batch(["a"], limit=-1)
    assert store.neighbors("a", limit=0) == []
