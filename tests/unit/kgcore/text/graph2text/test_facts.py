"""The facts check of the guard: relations said with their roles, nothing invented."""

from __future__ import annotations

import pytest

from kgcore.text.graph2text.facts import check_facts, stem
from kgcore.text.graph2text.guard import check_text
from kgcore.types import Triple

SHANE = [Triple("Shane", "directed_by", "George Stevens")]
FILM = [
    Triple("Shane", "directed_by", "George Stevens"),
    Triple("Shane", "starred_actors", "Alan Ladd"),
    Triple("Shane", "starred_actors", "Jean Arthur"),
    Triple("Shane", "release_year", "1953"),
    Triple("Shane", "in_language", "English"),
    Triple("Shane", "has_genre", "Western"),
]
CAPITAL = [Triple("Denmark", "capital", "Copenhagen")]
BEAN = [Triple("Alan_Bean", "birthPlace", "Wheeler,_Texas")]


@pytest.mark.parametrize(
    ("text", "triples"),
    [
        ("Shane was directed by George Stevens.", SHANE),
        ("George Stevens directed Shane.", SHANE),
        ("George Stevens is the director of Shane.", SHANE),
        ("Shane's director is George Stevens.", SHANE),
        ("Shane, directed by George Stevens, stars Alan Ladd and Jean Arthur.", FILM[:3]),
        (
            "Shane is a 1953 Western film in English directed by George Stevens and "
            "starring Alan Ladd and Jean Arthur.",
            FILM,
        ),
        (
            "Shane was directed by George Stevens. It was released in 1953, is in English, "
            "is a Western and stars Alan Ladd and Jean Arthur.",
            FILM,
        ),
        ("Copenhagen is the capital of Denmark.", CAPITAL),
        ("The capital of Denmark is Copenhagen.", CAPITAL),
        ("Alan Bean was born in Wheeler, Texas.", BEAN),
        ("Wheeler, Texas is the birthplace of Alan Bean.", BEAN),
    ],
)
def test_paraphrases_that_say_the_facts_pass(text: str, triples: list[Triple]) -> None:
    assert check_facts(text, triples).ok
    assert check_text(text, triples).ok


@pytest.mark.parametrize(
    ("text", "triples", "unsupported", "invented"),
    [
        # a swapped relation (the example) and another relation's verb
        (
            "George Stevens is the author of Shane.",
            SHANE,
            ["Shane | directed by | George Stevens"],
            [],
        ),
        (
            "Shane was written by George Stevens.",
            SHANE,
            ["Shane | directed by | George Stevens"],
            [],
        ),
        # swapped roles: active for passive, passive the other way, "s is the r of o"
        ("Shane directed George Stevens.", SHANE, ["Shane | directed by | George Stevens"], []),
        (
            "George Stevens was directed by Shane.",
            SHANE,
            ["Shane | directed by | George Stevens"],
            [],
        ),
        (
            "Shane is the director of George Stevens.",
            SHANE,
            ["Shane | directed by | George Stevens"],
            [],
        ),
        (
            "George Stevens's director is Shane.",
            SHANE,
            ["Shane | directed by | George Stevens"],
            [],
        ),
        ("Denmark is the capital of Copenhagen.", CAPITAL, ["Denmark | capital | Copenhagen"], []),
        # the names alone are not the fact
        ("Shane and George Stevens.", SHANE, ["Shane | directed by | George Stevens"], []),
        # invented years and numbers, negations
        ("Shane was directed by George Stevens in 1953.", SHANE, [], ["1953"]),
        ("Shane was directed by George Stevens and won 3 awards.", SHANE, [], ["3"]),
        ("Shane was not directed by George Stevens.", SHANE, [], ["not"]),
        ("Shane was never directed by George Stevens.", SHANE, [], ["never"]),
        ("Shane wasn't directed by George Stevens.", SHANE, [], ["wasn't"]),
        # a film's year said as another year
        (
            "Shane is a 1954 Western film in English directed by George Stevens and "
            "starring Alan Ladd and Jean Arthur.",
            FILM,
            [],
            ["1954"],
        ),
    ],
)
def test_wrong_facts_fail(
    text: str, triples: list[Triple], unsupported: list[str], invented: list[str]
) -> None:
    verdict = check_facts(text, triples)
    assert not verdict.ok
    assert verdict.unsupported[: len(unsupported)] == unsupported
    assert verdict.invented == invented
    assert not check_text(text, triples).ok


def test_numbers_of_the_input_may_be_written_another_way() -> None:
    triples = [Triple("Aarhus_Airport", "runwayLength", "2776.0")]
    assert check_facts("The runway length of Aarhus Airport is 2776.0.", triples).ok
    assert check_facts("The runway length of Aarhus Airport is 2,776.", triples).invented == []
    assert check_facts("The runway length of Aarhus Airport is 2777.", triples).invented == ["2777"]


def test_a_negation_in_the_input_may_be_said() -> None:
    triples = [Triple("Pluto", "status", "not a planet")]
    assert check_facts("The status of Pluto is not a planet.", triples).ok


def test_a_year_far_from_its_relation_is_not_said() -> None:
    triples = [
        Triple("Shane", "release_year", "1953"),
        Triple("Shane", "directed_by", "George Stevens"),
    ]
    verdict = check_facts("Shane was directed by George Stevens, who loved 1953.", triples)
    assert verdict.unsupported == ["Shane | release year | 1953"]


def test_names_only_check_is_still_available() -> None:
    text = "George Stevens is the author of Shane."
    assert check_text(text, SHANE, facts=False).ok
    assert not check_text(text, SHANE).ok


@pytest.mark.parametrize(
    ("word", "expected"),
    [("directed", "direct"), ("director", "direct"), ("starring", "star"), ("stars", "star")],
)
def test_stem(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_initials_do_not_end_a_sentence() -> None:
    triples = [Triple("Cellular", "directed_by", "David R. Ellis")]
    assert check_facts("David R. Ellis directed Cellular.", triples).ok
    assert check_facts(
        "J. R. Ellis and David R. Ellis. Cellular directed.", triples
    ).unsupported == ["Cellular | directed by | David R. Ellis"]


def test_many_films_of_one_director_in_one_sentence() -> None:
    films = ["Final Destination 2", "Asylum", "Cellular", "Snakes on a Plane"]
    triples = [Triple(f, "directed_by", "David R. Ellis") for f in films]
    text = (
        "Final Destination 2, Asylum, Cellular and Snakes on a Plane were directed by "
        "David R. Ellis."
    )
    assert check_facts(text, triples).ok
    two = "Final Destination 2 and Asylum were directed by David R. Ellis. Cellular is a film."
    assert [u.split(" | ")[0] for u in check_facts(two, triples[:3]).unsupported] == ["Cellular"]
