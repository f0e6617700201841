from __future__ import annotations

import pytest

from kgcore.exceptions import EntityNotFoundError
from kgcore.graph import InMemoryGraphStore
from kgcore.linking import bracketed_entities, link_entities, link_entity


def test_bracketed_entities() -> None:
    assert bracketed_entities("who directed [Cleopatra] and [ Giant ]?") == ["Cleopatra", "Giant"]
    assert bracketed_entities("who directed Cleopatra") == []


def test_exact_then_normalised_then_fuzzy(movie_store: InMemoryGraphStore) -> None:
    assert link_entity(movie_store, "Cleopatra") == "Cleopatra"
    assert link_entity(movie_store, "all  about eve") == "All About Eve"
    assert link_entity(movie_store, "Joseph L Mankiewicz") == "Joseph L. Mankiewicz"


def test_unknown_entity_lists_the_nearest_names(movie_store: InMemoryGraphStore) -> None:
    with pytest.raises(EntityNotFoundError) as info:
        link_entity(movie_store, "Cleo Patricia Movie")
    assert "Cleo Patricia Movie" in str(info.value)
    assert "closest names" in str(info.value)
    assert "Cleopatra" in info.value.suggestions


def test_lenient_linking_skips_unknown_names(movie_store: InMemoryGraphStore) -> None:
    assert link_entities(movie_store, ["Zzzz Qqqq", "Giant"], strict=False) == ["Giant"]
    with pytest.raises(EntityNotFoundError):
        link_entities(movie_store, ["Zzzz Qqqq", "Giant"], strict=True)
    with pytest.raises(EntityNotFoundError):
        link_entities(movie_store, ["Zzzz Qqqq"], strict=False)


def test_fuzzy_links_need_a_strict_score_and_a_margin() -> None:
    from kgcore.linking import link_entity_details

    store = InMemoryGraphStore.from_triples(
        [
            ("Cleopatra", "release_year", "1963"),
            ("Star Wars", "has_tags", "war"),
            ("Dead Man", "in_language", "English"),
            ("Joseph L. Mankiewicz", "directed", "All About Eve"),
            ("The Great Escape 1", "release_year", "1963"),
            ("The Great Escape 2", "release_year", "1986"),
        ]
    )
    for made_up in ("Cleopatre 1963", "English language film", "asdf", "Star Wars Episode X"):
        with pytest.raises(EntityNotFoundError):
            link_entity(store, made_up)
    with pytest.raises(EntityNotFoundError) as info:
        link_entity(store, "The Great Escape 3")  # close to both sequels: no clear margin
    assert {"The Great Escape 1", "The Great Escape 2"} <= set(info.value.suggestions)
    link = link_entity_details(store, "Joseph L. Mankiewiczz")
    assert (link.node, link.method) == ("Joseph L. Mankiewicz", "fuzzy") and link.score >= 90
    assert link_entity_details(store, "joseph l mankiewicz").method == "punctuation"
    assert link_entity_details(store, "cleopatra").method == "normalized"
    assert link_entity_details(store, "Cleopatra").to_dict() == {
        "mention": "Cleopatra",
        "node": "Cleopatra",
        "method": "exact",
        "score": 100.0,
    }


def test_no_made_up_metaqa_name_links(metaqa_store: InMemoryGraphStore) -> None:
    made_up = [
        "asdf",
        "Star Wars Episode X",
        "Cleopatre 1963",
        "English language film",
        "Qwxz Blorp",
        "The Unfilmed Story of Nobody",
        "Zzyzx Road Part 9",
    ]
    for name in made_up:
        with pytest.raises(EntityNotFoundError):
            link_entity(metaqa_store, name)
