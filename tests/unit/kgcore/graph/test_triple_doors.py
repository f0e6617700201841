"""Bad triples are refused at the doors (issue 37, item 6): ``from_triples`` does not unpack a
string or a mapping into bogus triples, a JSONL ``null`` or object does not become a node
``"None"`` or ``"{'x': 1}"``, a name with a control character or a line separator is refused,
and an empty or blank triple file is not a graph of 0 triples."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kgcore.exceptions import GraphLoadError
from kgcore.graph import InMemoryGraphStore, read_triples
from kgcore.graph.names import check_triple

#: Characters no node name may hold: ESC, BEL, NUL, TAB, DEL, U+0085 (NEL), U+2028, U+2029.
CONTROL = ["\x1b", "\x07", "\x00", "\t", "\x7f", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize(
    "triples",
    [
        "abc",  # was three one-letter nodes a -b-> c
        b"abc",
        {"head": "a", "relation": "r", "tail": "b"},  # was the keys, unpacked
        {"a": 1, "b": 2, "c": 3},
        42,
        ["abc"],
        [("a", "r")],
        [("a", "r", "b", "c")],
        [("a", "r", None)],
        [("a", "r", {"x": 1})],
        [("a", "r", 1995)],
        [("a", "r", 2.5)],
        [("a", True, "b")],
        [("a", "r", "")],
        [("a", "   ", "b")],
        [{"head": "a", "relation": "r", "tail": "b"}],
        [("Heat", "directed_by", "Michael Mann"), ("a", "r", None)],  # the second triple
    ],
    ids=repr,
)
def test_from_triples_refuses_what_is_not_triples_of_names(triples: Any) -> None:
    with pytest.raises(GraphLoadError):
        InMemoryGraphStore.from_triples(triples)


@pytest.mark.parametrize("char", CONTROL, ids=lambda c: f"U+{ord(c):04X}")
@pytest.mark.parametrize("role", [0, 1, 2], ids=["head", "relation", "tail"])
def test_a_name_with_a_control_character_is_refused(char: str, role: int) -> None:
    triple = ["Heat", "directed_by", "Michael Mann"]
    triple[role] = f"Mic{char}hael"
    with pytest.raises(GraphLoadError, match=f"U\\+{ord(char):04X}"):
        InMemoryGraphStore.from_triples([tuple(triple)])


def test_a_lone_surrogate_is_refused() -> None:
    with pytest.raises(GraphLoadError, match="surrogate"):
        check_triple(("Heat", "directed_by", "\ud800"))


def test_the_error_names_the_triple_and_the_field() -> None:
    with pytest.raises(GraphLoadError, match=r"triple 2: the tail must be a string, got NoneType"):
        InMemoryGraphStore.from_triples([("a", "r", "b"), ("c", "r", None)])


def test_good_names_still_load() -> None:
    # Format characters (a zero-width joiner, a soft hyphen) and accents are names' own.
    triples = [("Amélie", "directed_by", "Jean\u00adPierre"), ("क्\u200dष", "r", "b")]
    store = InMemoryGraphStore.from_triples(triples)
    assert store.num_triples() == 2 and store.has_node("Jean\u00adPierre")
    assert InMemoryGraphStore.from_triples([]).num_triples() == 0  # an empty store is fine


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("null_tail.jsonl", '["Heat", "directed_by", null]\n'),
        ("object_tail.jsonl", '["Heat", "directed_by", {"x": 1}]\n'),
        ("list_head.jsonl", '[["Heat"], "directed_by", "Michael Mann"]\n'),
        ("float_tail.jsonl", '["Heat", "year", 1995.5]\n'),
        ("bool_tail.jsonl", '["Heat", "liked", true]\n'),
        ("null_in_object.jsonl", '{"head": null, "relation": "r", "tail": "b"}\n'),
        ("blank_name.jsonl", '["Heat", " ", "b"]\n'),
        ("escape.jsonl", '["He\\u001bat", "directed_by", "Michael Mann"]\n'),
        ("nel.jsonl", '["Heat", "directed_by", "Michael\\u0085Mann"]\n'),
        ("separator.jsonl", '["Heat", "directed_by", "Michael\\u2028Mann"]\n'),
        ("escape.txt", "He\x1bat|directed_by|Michael Mann\n"),
        ("bell.tsv", "Heat\tdirected_by\tMichael\x07Mann\n"),
        ("tab_in_name.txt", "He\tat|directed_by|Michael Mann\n"),
        ("nel.csv", "Heat,directed_by,Michael\u0085Mann\n"),
        ("empty.txt", ""),
        ("blank.txt", "\n   \n\t\n"),
        ("header_only.tsv", "head\trelation\ttail\n"),
        ("empty.jsonl", "\n\n"),
    ],
)
def test_a_bad_triple_file_is_a_graph_load_error(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(GraphLoadError, match=str(path.name)):
        InMemoryGraphStore.from_file(path, progress=False)
    with pytest.raises(GraphLoadError):
        list(read_triples(path, progress=False))


def test_jsonl_integers_are_names_as_text(tmp_path: Path) -> None:
    path = tmp_path / "kb.jsonl"
    path.write_text('["Heat", "release_year", 1995]\n{"h": "Heat", "r": "id", "t": 7}\n')
    store = InMemoryGraphStore.from_file(path, progress=False)
    assert store.has_node("1995") and store.has_node("7") and not store.has_node("None")
