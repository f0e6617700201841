"""Topic entities found in a question's text by the graph's names alone (no brackets, no
given entities, no model)."""

from __future__ import annotations

import pytest

from kgcore.graph import InMemoryGraphStore
from kgcore.graph.compound import compound_view
from kgcore.mentions import fold, question_mentions, topic_mentions


@pytest.fixture
def store():
    return compound_view(
        InMemoryGraphStore.from_triples(
            [
                ("J. R. R. Tolkien", "people.person.education", "m.0n1"),
                ("m.0n1", "education.education.institution", "Exeter College, Oxford"),
                ("Antoni Gaudí", "architecture.architect.structures_designed", "Casa Milà"),
                ("Peru", "location.country.currency_used", "Peruvian sol"),
                ("Country", "freebase.type_hints.included_types", "Location"),
                ("Peru", "common.topic.notable_types", "Country"),
                ("John F. Kennedy", "people.person.spouse_s", "Jacqueline Kennedy Onassis"),
                ("John F. Kennedy", "people.person.place_of_birth", "Brookline"),
                ("John F. Kennedy", "people.person.profession", "Politician"),
                ("Ted Kennedy", "people.person.profession", "Politician"),
                ("Miley Cyrus", "film.actor.film", "LOL"),
                ("LOL", "film.film.directed_by", "Lisa Azuelos"),
                ("Sergio Romo", "sports.pro_athlete.teams", "San Francisco Giants"),
            ]
        )
    )


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("what college did jrr tolkien go to?", ["J. R. R. Tolkien"]),  # initials, lowercase
        ("what did antoni gaudi design?", ["Antoni Gaudí"]),  # accents
        ("what currency should i take to peru?", ["Peru"]),  # "currency" names a relation
        ("what team does romo play for?", ["Sergio Romo"]),  # one word of a longer name
        (
            "What movie with Miley Cyrus was directed by Lisa Azuelos?",
            ["Miley Cyrus", "Lisa Azuelos"],
        ),
    ],
)
def test_the_topic_is_found_as_a_user_writes_it(store, question, topic):
    assert topic_mentions(store, question) == topic


def test_of_several_nodes_a_word_names_the_better_connected_one_wins(store):
    found = question_mentions(store, "who was kennedy married to?")
    nodes = [m.node for m in found]
    assert nodes[0] == "John F. Kennedy" and "Ted Kennedy" in nodes
    assert topic_mentions(store, "who was kennedy married to?") == ["John F. Kennedy"]


def test_compound_nodes_and_function_words_are_never_mentions(store):
    assert topic_mentions(store, "what is the m.0n1 of it") == []
    assert topic_mentions(store, "who is it?") == []
    assert topic_mentions(store, "") == []


def test_fold_sets_case_accents_and_punctuation_aside():
    assert fold("Martin Luther King, Jr.") == "martin luther king jr"
    assert fold("  Brasília ") == "brasilia"
    assert fold("?!") == ""
