from __future__ import annotations

from kgcore.text import CommunityTextualizer, Triple2Text, relation_phrase
from kgcore.types import Triple

TRIPLES = [
    Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    Triple("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
    Triple("Cleopatra", "starred_actors", "Elizabeth Taylor"),
]


def test_paper_form_is_one_sentence_per_triple() -> None:
    text = Triple2Text(merge_shared=False)(["Cleopatra"], TRIPLES)
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
