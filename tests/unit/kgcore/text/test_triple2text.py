from __future__ import annotations

import pytest

from kgcore.text import CommunityTextualizer, Triple2Text, relation_phrase
from kgcore.types import Triple

TRIPLES = [
    Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    Triple("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
    Triple("Cleopatra", "starred_actors", "Elizabeth Taylor"),
]


def test_paper_form_is_one_sentence_per_triple() -> None:
    text = Triple2Text(merge_shared=False, sentence_per="triple")(["Cleopatra"], TRIPLES)
    assert text == (
        "Cleopatra directed by Joseph L. Mankiewicz. "
        "All About Eve directed by Joseph L. Mankiewicz. "
        "Cleopatra starred actors Elizabeth Taylor."
    )


def test_default_merges_triples_sharing_relation_and_tail() -> None:
    assert Triple2Text()(["Cleopatra"], TRIPLES) == (
        "Cleopatra; All About Eve directed by Joseph L. Mankiewicz. "
        "Cleopatra starred actors Elizabeth Taylor."
    )
    three = [Triple(h, "has_genre", "Drama") for h in ("A", "B", "C")]
    assert Triple2Text()([], three) == "A; B; C has genre Drama."


def test_cap_counts_the_hidden_facts() -> None:
    assert Triple2Text(max_triples=1)(["Cleopatra"], TRIPLES) == (
        "Cleopatra directed by Joseph L. Mankiewicz. (+2 more facts)"
    )


def test_community_without_triples_lists_its_nodes() -> None:
    assert Triple2Text()(["Cleopatra", "1963"], []) == "Cleopatra, 1963."


def test_relation_phrases_and_protocol() -> None:
    assert relation_phrase("film.film.directed_by") == "directed by"
    assert relation_phrase("/people/person/place_of_birth") == "place of birth"
    assert isinstance(Triple2Text(), CommunityTextualizer)


def test_merged_titles_containing_and_stay_apart() -> None:
    triples = [
        Triple("A Letter to Three Wives", "directed_by", "Joseph L. Mankiewicz"),
        Triple("Guys and Dolls", "directed_by", "Joseph L. Mankiewicz"),
    ]
    text = Triple2Text()([], triples)
    assert text == "A Letter to Three Wives; Guys and Dolls directed by Joseph L. Mankiewicz."
    subjects = text.split(" directed by ")[0].split("; ")
    assert subjects == ["A Letter to Three Wives", "Guys and Dolls"]


def test_sentence_units_relation_subject_and_triple() -> None:
    film = [
        Triple("The Gang's All Here", "directed_by", "Busby Berkeley"),
        Triple("The Gang's All Here", "starred_actors", "Alice Faye"),
        Triple("Dames", "directed_by", "Busby Berkeley"),
        Triple("The Gang's All Here", "starred_actors", "Carmen Miranda"),
        Triple("Dames", "release_year", "1934"),
    ]
    by_relation = Triple2Text()([], film)  # the default
    assert by_relation == (
        "The Gang's All Here; Dames directed by Busby Berkeley. "
        "The Gang's All Here starred actors Alice Faye; Carmen Miranda. "
        "Dames release year 1934."
    )
    # Without the shared-tail merge, one subject's sentences stay together.
    assert Triple2Text(merge_shared=False)([], film) == (
        "The Gang's All Here directed by Busby Berkeley. "
        "The Gang's All Here starred actors Alice Faye; Carmen Miranda. "
        "Dames directed by Busby Berkeley. Dames release year 1934."
    )
    by_subject = Triple2Text(merge_shared=False, sentence_per="subject")([], film)
    assert by_subject == (
        "The Gang's All Here directed by Busby Berkeley, starred actors Alice Faye; "
        "Carmen Miranda. Dames directed by Busby Berkeley, release year 1934."
    )
    by_triple = Triple2Text(sentence_per="triple")([], film)
    assert by_triple == (
        "The Gang's All Here; Dames directed by Busby Berkeley. "
        "The Gang's All Here starred actors Alice Faye. "
        "The Gang's All Here starred actors Carmen Miranda. Dames release year 1934."
    )
    assert len(by_relation) < len(by_triple)  # the same facts, shorter


def test_unknown_sentence_unit_is_refused_with_the_choices() -> None:
    from kgcore.exceptions import ConfigurationError, InvalidSettingError

    pattern = r"sentence_per must be one of .*'relation'.*'paragraph'"
    with pytest.raises(InvalidSettingError, match=pattern):
        Triple2Text(sentence_per="paragraph")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="verbalize must be a callable, not str"):
        Triple2Text(verbalize="upper")  # type: ignore[arg-type]


def test_titles_with_commas_and_and_stay_apart() -> None:
    film = [
        Triple("Bless Me, Ultima", "directed_by", "Carl Franklin"),
        Triple("Bless Me, Ultima", "starred_actors", "Guys and Dolls Cast"),
        Triple("Bless Me, Ultima", "starred_actors", "Miriam Colon"),
    ]
    assert Triple2Text()([], film) == (
        "Bless Me, Ultima directed by Carl Franklin. "
        "Bless Me, Ultima starred actors Guys and Dolls Cast; Miriam Colon."
    )
