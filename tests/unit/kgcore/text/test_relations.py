"""The relation verbaliser: readable relations in every prompt, configurable."""

from __future__ import annotations

import pytest

from kgcore.exceptions import InvalidSettingError
from kgcore.text import RelationVerbalizer, Triple2Text, distinct_phrases, verbalize_relation
from kgcore.types import Triple


@pytest.mark.parametrize(
    ("relation", "text"),
    [
        ("people.person.place_of_birth", "place of birth"),
        ("__people__person__gender", "gender"),
        ("__music__release_track__recording", "recording"),
        ("/film/film/directed_by", "directed by"),
        ("directed_by", "directed by"),
        ("place_of_birth", "place of birth"),
        ("capable of", "capable of"),
        (
            "government.politician.government_positions_held / "
            "government.government_position_held.office_position_or_title",
            "government positions held, office position or title",
        ),
        ("film.actor.film / ^film.film.starring", "film, starring of"),
        ("...", "..."),
        ("", ""),
    ],
)
def test_relations_read_as_their_last_segment(relation: str, text: str) -> None:
    assert verbalize_relation(relation) == text


def test_a_verbaliser_takes_names_of_your_own_or_shows_relations_as_stored() -> None:
    own = RelationVerbalizer({"people.person.place_of_birth": "was born in"})
    assert own("people.person.place_of_birth") == "was born in"
    assert own("people.person.gender") == "gender"
    assert RelationVerbalizer(style="raw")("people.person.gender") == "people.person.gender"
    with pytest.raises(InvalidSettingError, match="relation style"):
        RelationVerbalizer(style="pretty")  # type: ignore[arg-type]
    with pytest.raises(InvalidSettingError, match="non-empty text"):
        RelationVerbalizer({"r": " "})


def test_relations_that_read_the_same_are_told_apart() -> None:
    relations = ["film.film.country", "location.location.country", "people.person.gender"]
    assert distinct_phrases(relations) == ["film country", "location country", "gender"]
    same_tail = ["a.x.country", "b.x.country"]
    texts = distinct_phrases(same_tail)
    assert len(set(texts)) == 2  # written whole when one more segment does not help


def test_triple2text_writes_relations_through_its_verbaliser() -> None:
    triple = Triple("Nicki Minaj", "people.person.place_of_birth", "Saint James")
    assert Triple2Text()(["Nicki Minaj"], [triple]) == "Nicki Minaj place of birth Saint James."
    raw = Triple2Text(verbalize=RelationVerbalizer(style="raw"))
    assert "people.person.place_of_birth" in raw(["Nicki Minaj"], [triple])
    with pytest.raises(ValueError, match="verbalize must be a callable"):
        Triple2Text(verbalize="raw")  # type: ignore[arg-type]
