"""Path ranking's relation coverage: a question not asked as a chain prefers the path that
walks every relation it names (kgcore.methods.kernel.path_planning)."""

from __future__ import annotations

import pytest

from kgcore.exceptions import InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.methods.kernel.path_planning import list_paths, mentioned_relations, path_scorer
from kgcore.paths import PathSettings
from kgcore.paths.question_chain import chain_phrases

FILMS = [
    ("Heat", "directed_by", "Mann"),
    ("Thief", "directed_by", "Mann"),
    ("Thief", "written_by", "Frank"),
    ("Thief", "starred_actors", "Caan"),
    ("Heat", "starred_actors", "Pacino"),
]
QUESTION = "who wrote films that share directors with [Heat]"
STEMS = ("direct", "wr", "star", "film")
WEIGHT = 0.3


def embed(texts: list[str]) -> list[list[float]]:
    """A toy sentence embedder: which of a few stems each text holds."""
    return [[float(stem in text.lower()) for stem in STEMS] for text in texts]


def scored(
    question: str,
    coverage: float = WEIGHT,
    relations: int = 12,
    hop_cost: float = 0.0,
    named_hop_cost: float = 0.0,
) -> dict[str, float]:
    """Each listed path's score, by label (``relations``: the coverage term's gate)."""
    store = InMemoryGraphStore.from_triples(FILMS)
    scorer = path_scorer(embed, coverage, relations, hop_cost, named_hop_cost)
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


def test_a_path_gains_the_f1_of_its_relations_against_the_named_ones() -> None:
    with_coverage, without = scored(QUESTION), scored(QUESTION, coverage=0.0)
    gain = {label: with_coverage[label] - without[label] for label in without}
    both = "directed by / directed by of / written by"
    assert gain[both] == pytest.approx(WEIGHT)  # directed and written: both named relations
    assert gain["directed by / directed by of / starred actors"] == pytest.approx(WEIGHT / 2)
    assert gain["directed by"] == pytest.approx(WEIGHT * 2 / 3)
    assert gain["starred actors"] == pytest.approx(0.0)
    assert max(with_coverage, key=with_coverage.__getitem__) == both


def test_a_question_asked_as_a_chain_is_ranked_hop_by_hop_without_coverage() -> None:
    chain = "the writer of the film of the director of [Heat]"
    assert chain_phrases(chain, ["Heat"])  # read as a chain
    assert scored(chain) == pytest.approx(scored(chain, coverage=0.0))


def test_coverage_applies_only_among_few_relations() -> None:
    # The listed paths hold three relation names: a gate of 3 keeps the term, 2 drops it.
    assert scored(QUESTION, relations=3) == pytest.approx(scored(QUESTION))
    assert scored(QUESTION, relations=2) == pytest.approx(scored(QUESTION, coverage=0.0))


def test_coverage_is_a_checked_path_setting() -> None:
    assert (PathSettings().coverage, PathSettings().coverage_relations) == (0.0, 12)  # off
    with pytest.raises(InvalidSettingError, match="coverage"):
        PathSettings(coverage=-1.0)
    with pytest.raises(InvalidSettingError, match="coverage_relations"):
        PathSettings(coverage_relations=0)


def test_each_hop_past_the_first_costs_hop_cost_unless_the_question_is_a_chain() -> None:
    question = "who directed [Heat]"
    free, costed = scored(question, coverage=0.0), scored(question, coverage=0.0, hop_cost=0.2)
    for label, score in free.items():
        hops = label.count(" / ") + 1
        assert costed[label] == pytest.approx(score - 0.2 * (hops - 1))
    chain = "the writer of the film of the director of [Heat]"
    assert scored(chain, hop_cost=0.2) == pytest.approx(scored(chain))  # ranked hop by hop
    with pytest.raises(InvalidSettingError, match="hop_cost"):
        PathSettings(hop_cost=-0.1)


def test_named_hop_cost_is_paid_only_for_hops_past_the_first_the_question_does_not_name() -> None:
    plain = scored(QUESTION, coverage=0.0)
    costed = scored(QUESTION, coverage=0.0, named_hop_cost=0.2)
    # "directed" and "wrote" name two relations; "starred actors" is not named.
    assert costed["directed by / directed by of / written by"] == pytest.approx(
        plain["directed by / directed by of / written by"]
    )
    assert costed["directed by / directed by of / starred actors"] == pytest.approx(
        plain["directed by / directed by of / starred actors"] - 0.2
    )
    assert costed["directed by"] == pytest.approx(plain["directed by"])
    assert costed["starred actors"] == pytest.approx(plain["starred actors"])  # a first hop
    # Among more relation names than the gate allows, nothing is paid.
    assert scored(QUESTION, coverage=0.0, relations=2, named_hop_cost=0.2) == pytest.approx(plain)
    # A chain question is ranked hop by hop.
    chain = "the writer of the film of the director of [Heat]"
    assert scored(chain, named_hop_cost=0.2) == pytest.approx(scored(chain))
    with pytest.raises(InvalidSettingError, match="named_hop_cost"):
        PathSettings(named_hop_cost=1.5)
