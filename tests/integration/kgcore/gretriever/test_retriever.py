"""G-Retriever with the real all-MiniLM-L6-v2 embeddings (a real local model)."""

from __future__ import annotations

from pathlib import Path

from kgcore.gretriever import (
    GRetriever,
)
from kgcore.types import Triple


def test_real_embeddings_find_the_asked_relation(minilm, movie_triples, tmp_path: Path) -> None:
    retriever = GRetriever.from_triples(movie_triples, minilm, cache_dir=tmp_path, progress=False)
    result = retriever.retrieve("Who directed the film Shane?")
    assert Triple("Shane", "directed_by", "George Stevens") in result.edges
