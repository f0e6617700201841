from __future__ import annotations

import pytest
from gretriever_fakes import TableEmbedder

from kgcore.gretriever import SentenceTransformerEmbedder


@pytest.fixture(scope="session")
def minilm() -> SentenceTransformerEmbedder:
    """The offline all-MiniLM-L6-v2 (loaded once per session)."""
    return SentenceTransformerEmbedder(batch_size=32)


@pytest.fixture
def table_embedder() -> TableEmbedder:
    return TableEmbedder(dim=8)


MOVIE_TRIPLES = [
    ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    ("Cleopatra", "release_year", "1963"),
    ("Cleopatra", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "directed_by", "George Stevens"),
    ("Giant", "release_year", "1956"),
    ("Shane", "directed_by", "George Stevens"),
    ("Shane", "has_genre", "Western"),
]


@pytest.fixture
def movie_triples() -> list[tuple[str, str, str]]:
    return list(MOVIE_TRIPLES)
