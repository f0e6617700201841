"""The compound-node view: unnamed Freebase nodes are stepped through, never shown."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kgcore.community import LCSConfig, local_community_search
from kgcore.exceptions import ConfigurationError, InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.graph.compound import (
    CompoundNodeView,
    compound_relation,
    compound_view,
    is_unnamed_node,
    relation_legs,
    unnamed_node_test,
)
from kgcore.types import Triple

FIXTURE_KB = Path(__file__).resolve().parents[3] / "fixtures" / "data" / "webqsp_cwq" / "kb.txt"

POLK = [
    ("James K. Polk", "politician.positions_held", "m.04j5sk8"),
    ("m.04j5sk8", "position_held.office_holder", "James K. Polk"),
    ("m.04j5sk8", "position_held.office", "Governor of Tennessee"),
    ("Governor of Tennessee", "office.office_holders", "m.04j5sk8"),
    ("Tennessee", "jurisdiction.governing_officials", "m.04j5sk8"),
    ("James K. Polk", "person.profession", "Lawyer"),
]


def test_unnamed_nodes_are_freebase_ids_only() -> None:
    assert is_unnamed_node("m.0w4dx1v") and is_unnamed_node("g.1259pqvnv")
    for name in ("Malcolm X", "m.", "M.0w4dx1v", "mg.0w4", "m.0W4DX1V", "Barack Obama"):
        assert not is_unnamed_node(name), name
    assert unnamed_node_test(r"_:b\d+")("_:b12")
    assert not unnamed_node_test(None)("m.0w4dx1v")
    with pytest.raises(InvalidSettingError, match="bad unnamed-node pattern"):
        unnamed_node_test("(")


def test_a_compound_relation_keeps_its_legs_and_their_directions() -> None:
    legs = [("film.actor.film", False), ("film.film.starring", True)]
    assert relation_legs(compound_relation(legs)) == legs
    assert relation_legs("people.person.gender") == [("people.person.gender", False)]


def test_two_named_nodes_joined_through_a_compound_node_are_one_hop_apart() -> None:
    view = CompoundNodeView(InMemoryGraphStore.from_triples(POLK))
    triples = view.neighbors("James K. Polk")
    assert all(not is_unnamed_node(name) for t in triples for name in (t.head, t.tail))
    others = sorted(t.other("James K. Polk") for t in triples)
    assert others == ["Governor of Tennessee", "Lawyer", "Tennessee"]
    # The store holds both legs both ways: one triple per pair and compound node, read forward.
    governor = [t for t in triples if t.other("James K. Polk") == "Governor of Tennessee"]
    assert len(governor) == 1 and "^" not in governor[0].relation


def test_both_ends_see_the_same_compound_triple() -> None:
    view = CompoundNodeView(InMemoryGraphStore.from_triples(POLK))
    for node in ("James K. Polk", "Governor of Tennessee", "Tennessee"):
        for triple in view.neighbors(node):
            assert triple in view.neighbors(triple.other(node))
    nodes = ["James K. Polk", "Governor of Tennessee", "Tennessee"]
    assert set(view.triples_among(nodes)) == {
        t for n in nodes for t in view.neighbors(n) if t.other(n) in nodes
    }


def test_unnamed_nodes_are_never_names_searches_or_neighbours() -> None:
    view = CompoundNodeView(InMemoryGraphStore.from_triples(POLK))
    assert not view.has_node("m.04j5sk8") and view.has_node("Tennessee")
    assert "m.04j5sk8" not in view.search_nodes("m.04j5sk8", limit=10)
    assert view.neighbors("m.04j5sk8") == []
    assert all(not is_unnamed_node(n) for t in view.all_triples() for n in (t.head, t.tail))


def test_a_graph_without_unnamed_nodes_reads_as_the_store() -> None:
    store = InMemoryGraphStore.from_triples([("a", "r", "b"), ("b", "s", "c"), ("c", "r", "a")])
    view = CompoundNodeView(store)
    for node in "abc":
        assert view.neighbors(node) == store.neighbors(node)
        assert view.neighbors(node, limit=1) == store.neighbors(node, limit=1)
    assert view.triples_among("abc") == store.triples_among("abc")
    step = local_community_search(view, ["a"], LCSConfig(max_community_size=2), seed=3)
    assert (
        step.candidates
        == local_community_search(store, ["a"], LCSConfig(max_community_size=2), seed=3).candidates
    )


def test_a_large_unnamed_hub_is_not_a_record() -> None:
    hub = [(f"person {i}", "r", "m.0hub") for i in range(10)]
    view = CompoundNodeView(InMemoryGraphStore.from_triples(hub), max_compound_degree=4)
    assert view.neighbors("person 0") == []
    with pytest.raises(InvalidSettingError):
        CompoundNodeView(InMemoryGraphStore(), max_compound_degree=1)


def test_a_view_is_wrapped_once() -> None:
    view = compound_view(InMemoryGraphStore.from_triples(POLK))
    assert compound_view(view) is view
    with pytest.raises(ConfigurationError, match="wrap it once"):
        CompoundNodeView(view)  # type: ignore[arg-type]
    assert CompoundNodeView(InMemoryGraphStore.from_triples(POLK), unnamed=None).has_node(
        "m.04j5sk8"
    )


@pytest.mark.skipif(not FIXTURE_KB.is_file(), reason="fixture graph missing")
def test_on_the_webqsp_fixture_every_triple_is_named_and_seen_from_both_ends() -> None:
    view = CompoundNodeView(InMemoryGraphStore.from_file(FIXTURE_KB, progress=False))
    every = view.all_triples()
    assert every and all(not is_unnamed_node(n) for t in every for n in (t.head, t.tail))
    names = sorted({n for t in every for n in (t.head, t.tail)})
    for node in random.Random(0).sample(names, min(40, len(names))):
        for triple in view.neighbors(node):
            assert isinstance(triple, Triple)
            assert triple in view.neighbors(triple.other(node))
