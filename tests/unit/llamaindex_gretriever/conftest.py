"""The LlamaIndex adapter tests' ``movie_triples``: the G-Retriever movie graph without its two
attribute triples (see :mod:`tests.support.movie_graph`)."""

from __future__ import annotations

import pytest

from tests.support.movie_graph import LLAMAINDEX_MOVIE_TRIPLES


@pytest.fixture
def movie_triples() -> list[tuple[str, str, str]]:
    return list(LLAMAINDEX_MOVIE_TRIPLES)
