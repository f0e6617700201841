"""Relation paths listed around a topic entity and followed on the graph (kgcore.paths)."""

from __future__ import annotations

from kgcore.graph import InMemoryGraphStore
from kgcore.graph.compound import compound_view
from kgcore.paths import Hop, follow_path, relation_paths
from kgcore.paths.question_chain import chain_phrases, chain_readings
from kgcore.types import Triple
from tests.support.path_graphs import FAMILY


def family() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(FAMILY)


def test_a_three_hop_walk_reaches_the_answer_and_keeps_its_facts_hop_by_hop() -> None:
    hops = (Hop("child"), Hop("parent"), Hop("birthplace"))
    walked = follow_path(family(), "Ann", hops, exclude=["Ann"])
    # Ann's own birthplace is reached through a walk back to Ann: it comes second.
    assert walked.answers == ["Aurich", "Leer"]
    assert walked.facts == [
        Triple("Ann", "child", "Bob"),
        Triple("Bob", "parent", "Cid"),
        Triple("Bob", "parent", "Ann"),
        Triple("Cid", "birthplace", "Aurich"),
        Triple("Ann", "birthplace", "Leer"),
    ]
    assert not walked.capped


def test_a_hop_through_a_compound_node_is_one_relation_of_the_view() -> None:
    view = compound_view(family())
    paths = relation_paths(view, "Ann", max_hops=2)
    spouse = [p for p in paths if p.label() == "spouse, spouse / birthplace"]
    assert spouse and spouse[0].answers(["Ann"]) == ["Aurich"]
    walked = follow_path(view, "Ann", spouse[0].hops, exclude=["Ann"])
    assert walked.answers == ["Aurich"]
    assert all(not t.head.startswith("m.") and not t.tail.startswith("m.") for t in walked.facts)


def test_a_walk_never_takes_back_the_triple_it_just_took() -> None:
    paths = relation_paths(family(), "Ann", max_hops=2)
    back = [p for p in paths if [h.relation for h in p.hops] == ["child", "child"]]
    assert back == []  # Ann -child-> Bob, then Bob <-child- Ann again: not a path


def test_a_self_loop_may_be_walked_again_and_leads_back_to_the_topic() -> None:
    hops = (Hop("recording"), Hop("recording"), Hop("recording"))
    walked = follow_path(family(), "Song", hops, exclude=["Song"])
    assert walked.answers == ["Song"]  # nothing else is reached: the path leads back
    assert walked.facts == [Triple("Song", "recording", "Song")]


def test_the_topic_is_left_out_when_the_path_reaches_other_nodes() -> None:
    walked = follow_path(family(), "Ann", (Hop("child"), Hop("parent")), exclude=["Ann"])
    assert walked.answers == ["Cid"]


def test_a_capped_fan_out_is_reported() -> None:
    hops = (Hop("citizen of"), Hop("citizen of", forward=False))
    walked = follow_path(family(), "Cid", hops, max_fanout=1)
    assert not walked.capped  # one node walked on: Frisia
    walked = follow_path(family(), "Cid", (*hops, Hop("citizen of")), max_fanout=5)
    assert walked.capped  # 61 citizens, 5 walked on


def test_relation_paths_are_listed_shortest_first_with_what_they_reach() -> None:
    paths = relation_paths(family(), "Ann", max_hops=3)
    lengths = [len(p.hops) for p in paths]
    assert lengths == sorted(lengths)
    first = {p.label(): p.answers(["Ann"]) for p in paths if len(p.hops) == 1}
    assert first["child"] == ["Bob"] and first["birthplace"] == ["Leer"]


def test_the_beam_decides_which_paths_are_walked_on() -> None:
    kept = relation_paths(
        family(), "Ann", max_hops=2, extend=lambda ps: [p for p in ps if p.label() == "child"]
    )
    assert {p.hops[0].relation for p in kept if len(p.hops) == 2} == {"child"}


def test_questions_asked_as_chains_are_read_outwards_from_the_entity() -> None:
    question = "what is the nation of spouse of eugene 's dad ?"
    assert chain_phrases(question, ["eugene"]) == ["dad", "spouse", "nation"]
    assert chain_readings("the cause of death of Ann 's son ?", ["Ann"], 2) == [
        ["son", "cause of death"]
    ]
    assert chain_phrases("who directed the films starred by [Tom Hanks]", ["Tom Hanks"]) == []


def test_a_where_or_when_question_is_no_chain_its_last_relation_is_unsaid() -> None:
    # "born" is the third relation: read as a chain, "child's spouse" would answer Dee.
    assert chain_phrases("where was [Ann]'s child's spouse born", ["Ann"]) == []
    assert chain_phrases("when did [Ann] 's child 's spouse die ?", ["Ann"]) == []
    assert chain_phrases("who is [Ann] 's child 's spouse ?", ["Ann"]) == ["child", "spouse"]
