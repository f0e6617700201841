"""Path ranking (kgcore.paths.ranking): the relations a question names, and the cost of a hop
past the first whose relation it does not name."""

from __future__ import annotations

import pytest

import kgcore.paths.ranking as ranking
from kgcore.exceptions import InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.paths import PathSettings
from kgcore.paths.question_chain import chain_phrases
from kgcore.paths.ranking import mentioned_relations, path_scorer
from kgcore.paths.reading import list_paths

FILMS = [
    ("Heat", "directed_by", "Mann"),
    ("Thief", "directed_by", "Mann"),
    ("Thief", "written_by", "Frank"),
    ("Thief", "starred_actors", "Caan"),
    ("Heat", "starred_actors", "Pacino"),
]
QUESTION = "who wrote films that share directors with [Heat]"
STEMS = ("direct", "wr", "star", "film")
CHAIN = "the writer of the film of the director of [Heat]"


def embed(texts: list[str]) -> list[list[float]]:
    """A toy sentence embedder: which of a few stems each text holds."""
    return [[float(stem in text.lower()) for stem in STEMS] for text in texts]


def scored(question: str) -> dict[str, float]:
    """Each listed path's score, by label."""
    store = InMemoryGraphStore.from_triples(FILMS)
    scorer = path_scorer(embed)
    paths = list_paths(store, question, ["Heat"], PathSettings(), scorer)
    return dict(zip([p.label() for p in paths], scorer(question, ["Heat"], paths), strict=True))


def test_the_relations_a_question_names_are_its_words_closest_relations() -> None:
    relations = ["directed by", "written by", "starred actors"]
    assert mentioned_relations(QUESTION, ["Heat"], relations, embed) == {
        "directed by",
        "written by",
    }
    # The topic entity's own name names nothing.
    about = "what is [Star Wars] about"
    assert mentioned_relations(about, ["Star Wars"], relations, embed) == set()


def test_a_hop_past_the_first_the_question_does_not_name_costs_named_hop_cost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    costed = scored(QUESTION)
    monkeypatch.setattr(ranking, "NAMED_HOP_COST", 0.0)
    plain = scored(QUESTION)
    # "directed" and "wrote" name two relations; "starred actors" is not named.
    both = "directed by / directed by of / written by"
    assert costed[both] == pytest.approx(plain[both])
    assert costed["directed by / directed by of / starred actors"] == pytest.approx(
        plain["directed by / directed by of / starred actors"] - 0.2
    )
    assert costed["directed by"] == pytest.approx(plain["directed by"])
    assert costed["starred actors"] == pytest.approx(plain["starred actors"])  # a first hop
    assert max(costed, key=costed.__getitem__) == both


def test_the_cost_applies_only_among_few_relation_names(monkeypatch: pytest.MonkeyPatch) -> None:
    # The listed paths hold three relation names: a gate of 2 drops the cost.
    monkeypatch.setattr(ranking, "NAMED_RELATIONS_MAX", 2)
    gated = scored(QUESTION)
    monkeypatch.setattr(ranking, "NAMED_HOP_COST", 0.0)
    assert gated == pytest.approx(scored(QUESTION))


def test_a_question_asked_as_a_chain_is_ranked_hop_by_hop_at_no_cost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert chain_phrases(CHAIN, ["Heat"])  # read as a chain
    costed = scored(CHAIN)
    monkeypatch.setattr(ranking, "NAMED_HOP_COST", 0.0)
    assert costed == pytest.approx(scored(CHAIN))


def test_path_planning_has_one_setting() -> None:
    assert PathSettings().max_hops == 3 and not PathSettings(max_hops=0).enabled
    with pytest.raises(
        InvalidSettingError, match="no setting 'coverage'; its settings are max_hops"
    ):
        PathSettings(coverage=0.3)  # type: ignore[call-arg]  # retired (issue 63)
