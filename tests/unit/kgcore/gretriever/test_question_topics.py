"""A lazy G-Retriever links a question written without brackets (the exact names it writes,
then the strict rules on the whole question), and embeds at most ``max_region_texts`` texts a
question, however large the topic's neighbourhood (issue 39)."""

from __future__ import annotations

import pytest

from kgcore.exceptions import EntityNotFoundError, InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.gretriever import GRetriever, RegionSettings
from kgcore.gretriever.region import cap_region_texts, expand_region, lexical_scores
from kgcore.linking import names_in_question
from tests.support.fake_embedder import FakeEmbedder

#: Over this many nodes a graph is "large": embedded lazily, around the topic entities.
LAZY = RegionSettings(hops=1, whole_graph_max_nodes=3)


def lazy_retriever(
    triples: list[tuple[str, str, str]],
    embedder: FakeEmbedder,
    region: RegionSettings = LAZY,
    edge_text: str = "relation",
) -> GRetriever:
    retriever = GRetriever.lazy(
        triples,
        embedder,
        edge_text=edge_text,  # type: ignore[arg-type]
        cache_dir=None,
        region=region,
    )
    assert not retriever.searches_whole_graph() and not retriever.seeds_by_similarity()
    return retriever


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("who starred in Giant?", ["Giant"]),
        ("Elizabeth Taylor", ["Elizabeth Taylor"]),
        ("films of George Stevens's westerns", ["George Stevens"]),
        ('which films did "Shane" and Giant share', ["Shane", "Giant"]),
        ("who directed the giant", []),  # exact spelling only: no case-folding of words
        ("who directed it", []),
    ],
)
def test_names_in_question_are_exact_node_names_longest_first(
    movie_triples: list[tuple[str, str, str]], question: str, names: list[str]
) -> None:
    store = InMemoryGraphStore.from_triples(movie_triples)
    assert names_in_question(store, question) == names


def test_a_longer_name_wins_and_function_words_are_no_names() -> None:
    store = InMemoryGraphStore.from_triples(
        [("Rock Hudson", "r", "Hudson"), ("Who", "r", "In"), ("In the Mood", "r", "x")]
    )
    assert names_in_question(store, "Who was in the mood with Rock Hudson") == ["Rock Hudson"]
    assert names_in_question(store, "who starred in In the Mood") == ["In the Mood"]


@pytest.mark.parametrize(
    ("question", "seed"),
    [
        ("who directed Giant", "Giant"),  # the name the question writes
        ("Giant", "Giant"),  # a bare name, as an agent passes it
        ("elizabeth  taylor", "Elizabeth Taylor"),  # the whole question, case and spacing
        ("Elizabeth Tayler", "Elizabeth Taylor"),  # the whole question, strict fuzzy rule
        ("Georg Stevns", "George Stevens"),  # ratio 92.3
    ],
)
def test_a_question_without_brackets_seeds_the_lazy_region(
    movie_triples: list[tuple[str, str, str]], question: str, seed: str
) -> None:
    embedder = FakeEmbedder()
    retriever = lazy_retriever(movie_triples, embedder)
    result = retriever.retrieve(question)
    assert result.seeds == (seed,)
    assert retriever.index is None  # the graph was never embedded whole
    assert result == retriever.retrieve(question, topic_entities=[seed])


@pytest.mark.parametrize(
    ("question", "nearest"),
    [
        ("Cleopatre", "Cleopatra"),  # ratio 89: under the strict threshold
        ("who directed that western", "Western"),  # exact names only: "western" is none
        ("who directed it", None),
    ],
)
def test_a_question_naming_no_node_is_an_entity_error_with_the_closest_names(
    movie_triples: list[tuple[str, str, str]], question: str, nearest: str | None
) -> None:
    retriever = lazy_retriever(movie_triples, FakeEmbedder())
    with pytest.raises(EntityNotFoundError, match="closest names") as info:
        retriever.retrieve(question)
    assert info.value.name == question and info.value.suggestions
    if nearest is not None:
        assert info.value.suggestions[0] == nearest


def hub_triples(films: int) -> list[tuple[str, str, str]]:
    """An actor in ``films`` films, each with a year of its own; one film is "Pillow Talk"."""
    triples = [(f"Film {i:03d}", "starred_actors", "Rock Hudson") for i in range(films)]
    triples += [(f"Film {i:03d}", "release_year", str(1900 + i)) for i in range(films)]
    triples.append(("Pillow Talk", "starred_actors", "Rock Hudson"))
    return triples


@pytest.mark.parametrize("edge_text", ["relation", "triple"])
@pytest.mark.parametrize("cap", [2, 40, 150])
def test_a_hub_question_embeds_at_most_max_region_texts(edge_text: str, cap: int) -> None:
    embedder = FakeEmbedder()
    question = "which films did Rock Hudson star in besides Pillow Talk"
    retriever = lazy_retriever(
        hub_triples(300),
        embedder,
        RegionSettings(hops=2, whole_graph_max_nodes=3, max_region_texts=cap),
        edge_text,
    )
    result = retriever.retrieve(question, topic_entities=["Rock Hudson"])
    embedded = [t for t in embedder.embedded if t != question]
    assert 0 < len(embedded) <= cap
    assert len(set(embedded)) == len(embedded)  # no text embedded twice
    assert set(result.node_texts) <= set(embedded)
    assert result.seeds == ("Rock Hudson",)
    if cap > 2:  # the film the question names scores best by the lexical score
        assert "Pillow Talk" in result.searched_graph.node_texts  # type: ignore[union-attr]


def test_without_a_binding_cap_the_region_is_embedded_whole() -> None:
    embedder = FakeEmbedder()
    retriever = lazy_retriever(hub_triples(300), embedder, RegionSettings(whole_graph_max_nodes=3))
    result = retriever.retrieve("films of Rock Hudson", topic_entities=["Rock Hudson"])
    # 602 nodes and 2 relations, all under the default cap of 2048 texts
    assert result.searched_nodes == 602
    assert len(set(embedder.embedded) - {"films of Rock Hudson"}) == 604


def test_the_cap_keeps_the_nodes_nearest_the_seeds_then_the_best_scored() -> None:
    store = InMemoryGraphStore.from_triples(
        [("hub", "r", f"leaf{i}") for i in range(6)] + [("leaf0", "s", "far")]
    )
    region = expand_region(store, ["hub"], hops=2)

    def scorer(names: object) -> object:
        return lexical_scores("leaf4 and far", list(names))  # type: ignore[call-overload]

    capped = cap_region_texts(region, 4, lambda t: t.relation, scorer)
    # hub, relation r, then hop 1 before hop 2 ("far" scores best but is two hops away)
    assert capped.nodes == ("hub", "leaf0", "leaf4") and capped.truncated
    assert {t.tail for t in capped.triples} == {"leaf0", "leaf4"}
    assert cap_region_texts(region, 100, lambda t: t.relation) is region


@pytest.mark.parametrize(
    ("value", "error"),
    [(1, "out of"), (0, "out of"), ("many", "must be an integer"), (2.5, "must be an integer")],
)
def test_max_region_texts_is_checked_when_the_settings_are_made(value: object, error: str) -> None:
    with pytest.raises(InvalidSettingError, match=f"max_region_texts.*{error}"):
        RegionSettings(max_region_texts=value)  # type: ignore[arg-type]
