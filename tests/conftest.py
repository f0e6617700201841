"""Fixtures shared across the suite: a small movie graph with known structure."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgcore.graph import InMemoryGraphStore
from kgcore.types import Triple

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"

MOVIE_TRIPLES = [
    Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    Triple("Cleopatra", "starred_actors", "Elizabeth Taylor"),
    Triple("Cleopatra", "release_year", "1963"),
    Triple("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
    Triple("All About Eve", "starred_actors", "Bette Davis"),
    Triple("Guys and Dolls", "directed_by", "Joseph L. Mankiewicz"),
    Triple("Guys and Dolls", "starred_actors", "Marlon Brando"),
    Triple("Giant", "starred_actors", "Elizabeth Taylor"),
    Triple("Giant", "directed_by", "George Stevens"),
    Triple("Butterfield 8", "starred_actors", "Elizabeth Taylor"),
    Triple("Shane", "directed_by", "George Stevens"),
    Triple("The Great Escape", "release_year", "1963"),
    Triple("Charade", "release_year", "1963"),
]


@pytest.fixture()
def movie_store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(MOVIE_TRIPLES)


@pytest.fixture(scope="session")
def metaqa_kb() -> Path:
    path = SHARED_DATA / "metaqa" / "kb.txt"
    if not path.exists():
        pytest.fail(f"MetaQA data missing at {path}: CI keeps shared/ beside the project")
    return path


@pytest.fixture(scope="session")
def metaqa_store(metaqa_kb: Path) -> InMemoryGraphStore:
    """The MetaQA graph, loaded once per session (read-only in tests)."""
    return InMemoryGraphStore.from_file(metaqa_kb, progress=False)
