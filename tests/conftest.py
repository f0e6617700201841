"""Fixtures shared by the unit and the integration tests: the movie graphs and MetaQA.

The graphs themselves are defined once, in :mod:`tests.support.movie_graph`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgcore.graph import InMemoryGraphStore
from tests.support.fake_embedder import FakeEmbedder
from tests.support.graph2text_models import small_webnlg, tiny_model  # noqa: F401 (fixtures)
from tests.support.movie_graph import GRETRIEVER_MOVIE_TRIPLES, MOVIE_TRIPLES
from tests.support.paths import SHARED_DATA


@pytest.fixture()
def movie_store() -> InMemoryGraphStore:
    """A fresh in-memory store of :data:`~tests.support.movie_graph.MOVIE_TRIPLES`."""
    return InMemoryGraphStore.from_triples(MOVIE_TRIPLES)


@pytest.fixture
def movie_triples() -> list[tuple[str, str, str]]:
    """A fresh list of :data:`~tests.support.movie_graph.GRETRIEVER_MOVIE_TRIPLES`."""
    return list(GRETRIEVER_MOVIE_TRIPLES)


@pytest.fixture
def embedder() -> FakeEmbedder:
    """The shared fake embedder (a seeded bag of words, 8 dimensions; no model)."""
    return FakeEmbedder()


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
