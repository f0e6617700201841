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
