"""``GRetrieverRetriever`` on a graph embedded lazily links a question without brackets (the
node names it writes, then the question as one name by the strict rules; no model) and embeds at
most ``max_region_texts`` texts a question (issue 39)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgcore.exceptions import EntityNotFoundError
from kgcore.gretriever import RegionSettings
from llamaindex_gretriever import GRetrieverRetriever
from tests.support.fake_embedder import FakeEmbedder


def lazy(
    triples: list[tuple[str, str, str]],
    embedder: FakeEmbedder,
    cache: Path,
    preset: str | None = None,
    **region: int,
) -> GRetrieverRetriever:
    settings = RegionSettings(whole_graph_max_nodes=3, **region)  # "large": embedded by region
    return GRetrieverRetriever.from_triples(
        triples, embedder, cache_dir=cache, region=settings, on_unknown_entity="raise",
        preset=preset,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("question", "mention", "method"),
    [
        ("who directed Giant", "Giant", "exact"),
        ("Ruggero Raimondi", "Ruggero Raimondi", "exact"),
        ("which films did Ruggero Raimondi star in?", "Ruggero Raimondi", "exact"),
        ("Ruggero Raimondy", "Ruggero Raimondy", "fuzzy"),
    ],
)
def test_a_plain_question_is_linked_without_brackets(
    movie_triples: list[tuple[str, str, str]],
    tmp_path: Path,
    question: str,
    mention: str,
    method: str,
) -> None:
    triples = [*movie_triples, ("Carmen", "starred_actors", "Ruggero Raimondi")]
    embedder = FakeEmbedder()
    retriever = lazy(triples, embedder, tmp_path)
    node = retriever.retrieve(question)[0].node
    (link,) = node.metadata["entity_links"]
    assert (link["mention"], link["method"]) == (mention, method)
    assert link["node"] in node.metadata["nodes"]
    assert retriever.gretriever.index is None  # still lazy: the region only


@pytest.mark.parametrize("question", ["Cleopatre", "who directed that film"])
def test_a_plain_question_naming_no_node_raises_with_the_closest_names(
    movie_triples: list[tuple[str, str, str]], tmp_path: Path, question: str
) -> None:
    retriever = lazy(movie_triples, FakeEmbedder(), tmp_path)
    with pytest.raises(EntityNotFoundError, match="closest names") as info:
        retriever.retrieve(question)
    assert info.value.name == question and info.value.suggestions


@pytest.mark.parametrize("cap", [10, 100])
def test_a_hub_question_embeds_at_most_the_cap(tmp_path: Path, cap: int) -> None:
    hub = [(f"Film {i:03d}", "starred_actors", "Rock Hudson") for i in range(400)]
    embedder = FakeEmbedder()
    # The paper's retrieval: the default's planned paths embed their own texts too.
    retriever = lazy(hub, embedder, tmp_path, preset="paper", max_region_texts=cap)
    question = "which films did Rock Hudson star in"
    node = retriever.retrieve(question)[0].node
    assert node.metadata["entity_links"][0]["node"] == "Rock Hudson"
    embedded = [t for t in embedder.embedded if t != question]
    assert 0 < len(embedded) <= cap < 400
