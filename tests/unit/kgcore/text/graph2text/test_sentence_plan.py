"""Graph2Text's sentence plan (groups of triples sharing a head, written one at a time) and its
guard-checked candidates (the first beam candidate that passes the guard is kept).

The model is replaced by scripted candidates: what is tested is the planning, the batching, the
choice among candidates and the checks of the settings.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.text.graph2text import Graph2Text
from kgcore.text.graph2text.settings import G2TSettings
from kgcore.types import Triple

HEAT = [
    Triple("Heat", "directed_by", "Michael Mann"),
    Triple("Ronin", "starred_actors", "Robert De Niro"),
    Triple("Heat", "starred_actors", "Al Pacino"),
    Triple("Heat", "release_year", "1995"),
]


class ScriptedGraph2Text(Graph2Text):
    """Candidates from a function of the group; records each batch it was asked for."""

    def __init__(self, write: object, **options: object) -> None:
        super().__init__(model=None, tokenizer=None, **options)  # type: ignore[arg-type]
        self.write = write
        self.batches: list[list[list[str]]] = []

    def _candidates(self, batch: Sequence[Sequence[Sequence[str]]]) -> list[str]:
        self.batches.append([[str(t[0]) for t in group] for group in batch])
        return [text for group in batch for text in self.write(group)]  # type: ignore[operator]


def _sentence(group: Sequence[Sequence[str]]) -> list[str]:
    return [" ".join(f"{h} {r.replace('_', ' ')} {t}." for h, r, t in group)]


def test_the_plan_groups_triples_by_head_in_order_at_most_n_each() -> None:
    g2t = ScriptedGraph2Text(_sentence, triples_per_sentence=2)
    assert g2t.plan(HEAT) == [[HEAT[0], HEAT[2]], [HEAT[3]], [HEAT[1]]]
    assert ScriptedGraph2Text(_sentence).plan(HEAT) == [HEAT]
    assert ScriptedGraph2Text(_sentence, triples_per_sentence=1, max_triples=2).plan(HEAT) == [
        [HEAT[0]],
        [HEAT[1]],
    ]


def test_each_group_is_written_and_the_texts_are_joined_in_plan_order() -> None:
    g2t = ScriptedGraph2Text(_sentence, triples_per_sentence=1, batch_size=3)
    texts = g2t.generate([HEAT, HEAT[:1]])
    assert texts == [
        "Heat directed by Michael Mann. Heat starred actors Al Pacino. Heat release year 1995. "
        "Ronin starred actors Robert De Niro.",
        "Heat directed by Michael Mann.",
    ]
    # five groups, four of them distinct, written in batches of three
    assert [len(batch) for batch in g2t.batches] == [3, 1]


def test_a_group_written_before_is_not_written_again() -> None:
    g2t = ScriptedGraph2Text(_sentence, triples_per_sentence=1)
    first = g2t.generate([HEAT[:2]])
    again = g2t.generate([HEAT[1:3], HEAT[:2]])
    assert again[1] == first[0]
    assert again[0] == "Ronin starred actors Robert De Niro. Heat starred actors Al Pacino."
    assert g2t.batches == [[["Heat"], ["Ronin"]], [["Heat"]]]  # only HEAT[2] was new


def test_the_cache_keeps_the_newest_texts_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import kgcore.text.graph2text.model as model

    monkeypatch.setattr(model, "TEXT_CACHE_SIZE", 2)
    g2t = ScriptedGraph2Text(_sentence, triples_per_sentence=1)
    g2t.generate([HEAT[:3]])  # three groups; the first is forgotten
    g2t.generate([HEAT[:1]])
    assert len(g2t.batches) == 2 and g2t.batches[1] == [["Heat"]]


def test_the_first_candidate_that_passes_the_guard_is_kept() -> None:
    def invented_then_right(group: Sequence[Sequence[str]]) -> list[str]:
        return ["Heat was directed by Michael Mann in 1971.", *_sentence(group), "Heat."]

    g2t = ScriptedGraph2Text(invented_then_right, num_beams=3, candidates=3)
    assert g2t.generate([HEAT[:1]]) == ["Heat directed by Michael Mann."]


def test_without_a_passing_candidate_the_most_likely_one_is_kept() -> None:
    g2t = ScriptedGraph2Text(lambda group: ["Heat is a film.", "Heat."], num_beams=2, candidates=2)
    assert g2t.generate([HEAT[:1]]) == ["Heat is a film."]


@pytest.mark.parametrize(
    "bad",
    [
        {"candidates": 2},  # more than num_beams (1)
        {"candidates": 0},
        {"triples_per_sentence": 0},
        {"triples_per_sentence": True},
    ],
)
def test_options_are_checked_when_made(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        ScriptedGraph2Text(_sentence, **bad)


@pytest.mark.parametrize(
    "bad",
    [{"num_beams": 2, "candidates": 3}, {"candidates": 0}, {"triples_per_sentence": 0}],
)
def test_folder_settings_are_checked_when_made(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        G2TSettings(architecture="causal", **bad)  # type: ignore[arg-type]


def test_the_settings_give_the_writing_defaults() -> None:
    settings = G2TSettings(num_beams=4, candidates=4, triples_per_sentence=1)
    assert G2TSettings.from_dict(settings.to_dict()) == settings
    assert settings.generation_options() == {
        "num_beams": 4,
        "triples_per_sentence": 1,
        "candidates": 4,
    }


def test_the_shipped_seq2seq_model_writes_a_plan_with_candidates() -> None:
    g2t = Graph2Text.from_pretrained(
        "graph2text-webnlg-small", num_beams=2, candidates=2, triples_per_sentence=1
    )
    texts = g2t.generate([HEAT, HEAT[:1]])
    assert len(texts) == 2 and all(isinstance(t, str) and t for t in texts)
    assert texts[0].count(".") >= 4  # one sentence (at least) per triple
    assert g2t.generate([HEAT, HEAT[:1]]) == texts
