"""CGPE: clue extraction, initial points, three-step matching, rules, call counts."""

from __future__ import annotations

import networkx as nx
import pytest

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.cgpe import CGPE, CluePath, parse_clue_matches
from kgcore.types import Triple

TRIPLES = [
    ("Somewhere in Time", "starred_actors", "Jane Seymour"),
    ("Wake", "starred_actors", "Jane Seymour"),
    ("Somewhere in Time", "directed_by", "Jeannot Szwarc"),
    ("Somewhere in Time", "release_year", "1980"),
    ("Wake", "directed_by", "Ellie Kanner"),
    ("Wake", "release_year", "2009"),
]


@pytest.fixture()
def store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(TRIPLES)


def test_two_hop_exploration_with_three_steps_and_exact_calls(store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Jane Seymour", "films", "director"]'],
            # depth 1: two clues left -> steps 1, 2 and 3
            "cgpe_step1": ["{A: films}", "{B: director}"],
            "cgpe_step2": ["{A, B}", "{A, B}"],
            "cgpe_step3": ["{A: films, B: films}"],
            "cgpe_answer": ["{Jeannot Szwarc}"],
        }
    )
    result = CGPE(store).run("which person directed the films acted by Jane Seymour", llm)
    purposes = [r.purpose for r in llm.requests]
    # clues, depth 1 (steps 1-3), depth 2 (steps 1-2: one clue left, step 3 skipped), answer
    assert purposes == [
        "cgpe_clues",
        "cgpe_step1",
        "cgpe_step2",
        "cgpe_step3",
        "cgpe_step1",
        "cgpe_step2",
        "cgpe_answer",
    ]
    assert result.llm_calls == 7
    assert result.answer == "Jeannot Szwarc"
    assert result.depth == 2
    assert result.extra["step_calls"] == [2, 2, 1]
    assert set(result.extra["used_clues"]) == {"Jane Seymour", "films", "director"}
    assert "Jane Seymour <-starred actors- Somewhere in Time -directed by-> Jeannot Szwarc" in (
        result.context
    )
    # Step 1 shows summaries (relation, label); without a type property the relation is the label
    step1 = llm.requests[4].prompt_text
    assert "A. release year" in step1 and "B. directed by" in step1
    # Step 2 shows (label, name); step 3 the whole triple that reaches the entity
    assert "A. starred actors: Somewhere in Time" in llm.requests[2].prompt_text
    step3 = llm.requests[3].prompt_text
    assert "A. Somewhere in Time, from (Somewhere in Time, starred actors, Jane Seymour)" in step3


def test_clue_matching_a_candidate_by_characters_needs_no_llm_call(
    store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM.by_purpose(
        {"cgpe_clues": ['["Jane Seymour", "Wake"]'], "cgpe_answer": ["{2009}"]}
    )
    result = CGPE(store).run("when was Wake with Jane Seymour released", llm)
    assert [r.purpose for r in llm.requests] == ["cgpe_clues", "cgpe_answer"]
    assert result.extra["char_matches"] == 1
    assert result.extra["paths"] == ["Jane Seymour <-starred actors- Wake"]
    assert result.depth == 1


def test_initial_point_comes_from_the_best_character_match(store: InMemoryGraphStore) -> None:
    engine = CGPE(store)
    assert engine.initial_points(["films", "jane  seymour", "Wake up"]) == (
        "jane  seymour",
        "Jane Seymour",
    )
    assert engine.initial_points(["nothing like it"]) is None


def test_no_initial_point_falls_back_to_cot(store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM.by_purpose({"cgpe_clues": ['["Atlantis"]'], "cot": ["{Unknown}"]})
    result = CGPE(store).run("who founded Atlantis", llm)
    assert result.fell_back
    assert result.llm_calls == 2
    assert result.context == ""


def test_topic_entities_are_the_initial_points_and_use_their_clue(
    store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Jane Seymour", "films"]'],
            "cgpe_step1": ["{A: films}"],
            "cgpe_step2": ["{B}"],
            "cgpe_answer": ["{Wake}"],
        }
    )
    result = CGPE(store).run("films of [Jane Seymour]", llm, topic_entities=["jane seymour"])
    assert result.extra["paths"] == ["Jane Seymour <-starred actors- Wake"]
    assert result.llm_calls == 4


def test_several_matches_branch_into_paths_capped_by_max_branches(
    store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Jane Seymour", "films"]'],
            "cgpe_step1": ["{A: films}"],
            "cgpe_step2": ["{A, B}"],
            "cgpe_answer": ["{Wake}"],
        }
    )
    result = CGPE(store, max_branches=1).run("films of Jane Seymour", llm)
    assert result.extra["paths"] == ["Jane Seymour <-starred actors- Somewhere in Time"]
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Jane Seymour", "films"]'],
            "cgpe_step1": ["{A: films}"],
            "cgpe_step2": ["{A, B}"],
            "cgpe_answer": ["{Wake}"],
        }
    )
    result = CGPE(store).run("films of Jane Seymour", llm)
    assert len(result.extra["paths"]) == 2


def test_a_used_clue_is_not_matched_again_and_depth_is_limited() -> None:
    chain = InMemoryGraphStore.from_triples(
        [
            ("Start", "next", "Film One"),
            ("Film One", "next", "Film Two"),
            ("Film Two", "next", "End"),
        ]
    )
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Start", "film one", "end"]'],
            "cgpe_step1": ["{none}"],
            "cgpe_answer": ["{Film One}"],
        }
    )
    result = CGPE(chain, max_depth=2).run("q about Start", llm)
    # depth 1: "film one" matched by characters; depth 2: "end" left, Film Two does not match
    # by characters and step 1 says none -> exploration ends (stuck)
    assert result.extra["paths"] == ["Start -next-> Film One"]
    assert result.extra["char_matches"] == 1
    assert result.depth == 2


def test_unparseable_step_replies_are_retried_once_then_count_as_no_match(
    store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Jane Seymour", "films"]'],
            "cgpe_step1": ["I think\nmaybe", "Hmm,\nnot sure"],
            "cgpe_answer": ["Cannot tell\nfrom this.", "{Unknown}"],
        }
    )
    result = CGPE(store).run("films of Jane Seymour", llm)
    assert [r.purpose for r in llm.requests] == [
        "cgpe_clues",
        "cgpe_step1",
        "cgpe_step1",
        "cgpe_answer",
        "cgpe_answer",
    ]
    assert result.answer == "Unknown"
    # Every unusable reply counts: both step-1 replies and both answer replies.
    assert result.extra["unparsed_replies"] == 4
    assert result.extra["paths"] == ["Jane Seymour"]


def test_type_property_of_the_graph_is_the_node_label() -> None:
    graph = nx.MultiDiGraph()
    graph.add_edge("Wake", "Jane Seymour", key="starred_actors")
    graph.nodes["Wake"]["type"] = "film"
    graph.nodes["Jane Seymour"]["type"] = "person"
    store = InMemoryGraphStore(graph)
    engine = CGPE(store)
    assert engine.label("Wake", "starred_actors") == "film"
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Jane Seymour", "movie"]'],
            "cgpe_step1": ["{A: movie}"],
            "cgpe_step2": ["{A}"],
            "cgpe_answer": ["{Wake}"],
        }
    )
    engine.run("movies of Jane Seymour", llm)
    assert "A. starred actors (reverse) -> film" in llm.requests[1].prompt_text
    assert "A. film: Wake" in llm.requests[2].prompt_text


def test_without_type_property_the_reaching_relation_is_the_label(
    store: InMemoryGraphStore,
) -> None:
    assert CGPE(store).label("Wake", "starred_actors") == "starred_actors"


def test_clue_path_text_shows_directions() -> None:
    path = CluePath(("A",)).extend(Triple("A", "r", "B"), "b").extend(Triple("C", "s", "B"), "c")
    assert path.text() == "A -r-> B <-s- C"
    assert path.clues == ("b", "c")


@pytest.mark.parametrize(
    ("text", "clues", "expected"),
    [
        ("{A: films, B: none}", ["films", "person"], {0: "films"}),
        ("A: the director\nC: film", ["films", "director"], {0: "director", 2: "films"}),
        ("{B}", ["films"], {1: "films"}),
        ("{B}", ["films", "person"], {1: None}),
        ("{A: clue, B: none, C: clue}", ["films", "person"], {0: None, 2: None}),
        ("{none}", ["films"], {}),
        ("No idea at\nall here.", ["films"], None),
    ],
)
def test_parse_clue_matches(text: str, clues: list[str], expected: object) -> None:
    assert parse_clue_matches(text, 3, clues) == expected


def test_bad_settings_are_refused(store: InMemoryGraphStore) -> None:
    with pytest.raises(ValueError):
        CGPE(store, max_depth=0)
    with pytest.raises(ValueError):
        CGPE(store, match_threshold=0)


def test_copied_placeholder_in_step3_falls_back_to_the_step1_clue(
    store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Jane Seymour", "director", "films"]'],
            "cgpe_step1": ["{A: films}", "{none}"],
            "cgpe_step2": ["{A}"],
            "cgpe_step3": ["{A: clue}"],
            "cgpe_answer": ["{Somewhere in Time}"],
        }
    )
    result = CGPE(store).run("films of Jane Seymour and their director", llm)
    assert result.extra["paths"] == ["Jane Seymour <-starred actors- Somewhere in Time"]
    assert "films" in result.extra["used_clues"]


def test_step3_example_offers_no_none_to_copy(store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM.by_purpose(
        {
            "cgpe_clues": ['["Jane Seymour", "director", "films"]'],
            "cgpe_step1": ["{A: films}", "{none}"],
            "cgpe_step2": ["{A, B}"],
            "cgpe_step3": ["{A: clue, B: clue}"],
            "cgpe_answer": ["{Somewhere in Time}"],
        }
    )
    result = CGPE(store).run("films of Jane Seymour and their director", llm)
    step3 = next(r for r in llm.requests if r.purpose == "cgpe_step3").prompt_text
    assert "{A: clue, B: clue}" in step3 and "B: none" not in step3
    # a verbatim copy of the example keeps both entities, each on the step-1 clue
    assert len(result.extra["paths"]) == 2
