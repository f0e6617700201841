"""The hallucination guard, the textualizer names and FastToG with ``textualizer="g2t"``."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.llm import ScriptedLLM
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.paths import PathSettings
from kgcore.text import Triple2Text, resolve_textualizer
from kgcore.text.graph2text.guard import GuardedTextualizer, check_text
from kgcore.types import Triple
from kgeval.registry import make_method

TRIPLES = [Triple("Aarhus_Airport", "cityServed", '"Aarhus, Denmark"')]


@pytest.mark.parametrize(
    ("text", "ok", "missing", "foreign"),
    [
        ("Aarhus Airport serves the city of Aarhus, Denmark.", True, [], []),
        ("The Aarhus airport serves AARHUS (Denmark).", True, [], []),
        ("Aarhus Airport serves Aarhus.", False, ["Aarhus, Denmark"], []),
        ("Aarhus Airport serves Aarhus, Denmark and Billund.", False, [], ["Billund"]),
        ("In July, Aarhus Airport served Aarhus, Denmark.", True, [], []),
        ("", False, ["Aarhus Airport", "Aarhus, Denmark"], []),
    ],
)
def test_check_text(text: str, ok: bool, missing: list[str], foreign: list[str]) -> None:
    verdict = check_text(text, TRIPLES)
    assert (verdict.ok, verdict.missing, verdict.foreign) == (ok, missing, foreign)


def test_guarded_textualizer_falls_back_per_community_and_counts() -> None:
    def fake(communities: Sequence[Sequence[Sequence[str]]]) -> list[str]:
        return ["Aarhus Airport serves Aarhus, Denmark.", "Bob was born in Paris."][
            : len(communities)
        ]

    guard = GuardedTextualizer(fake)
    other = [Triple("Alice", "born_in", "Rome")]
    results = guard.generate([(["x"], TRIPLES), (["Alice", "Rome"], other), (["solo"], [])])
    assert results == [
        ("Aarhus Airport serves Aarhus, Denmark.", False),
        ("Alice born in Rome.", True),
        ("solo.", False),
    ]
    assert (guard.calls, guard.fallbacks) == (2, 1)
    assert guard.fell_back("Alice born in Rome.") and not guard.fell_back("solo.")


def test_short_or_long_replies_from_a_generator_are_rejected_not_raised() -> None:
    guard = GuardedTextualizer(lambda cs: [])
    assert guard(["A"], [Triple("A", "r", "B")]) == Triple2Text()(["A"], [Triple("A", "r", "B")])


def test_textualizer_names() -> None:
    assert isinstance(resolve_textualizer("t2t"), Triple2Text)
    with pytest.raises(ConfigurationError, match="unknown textualizer 'gpt'"):
        resolve_textualizer("gpt")
    with pytest.raises(ConfigurationError, match="no Graph2Text model folder"):
        resolve_textualizer("g2t:./does-not-exist")


def test_fasttog_with_g2t_records_fallbacks(movie_store, tiny_model) -> None:
    engine = make_method(
        "fasttog",
        movie_store,
        textualizer=f"g2t:{tiny_model}",
        width=1,
        grounded_answers=False,
        first_choice="llm",  # as the plain engine below chooses
        # Path planning off in both: the communities are compared (and the harness ranks paths
        # with its embedder, the plain engine below without one).
        **{"paths.max_hops": 0},
    )
    assert isinstance(engine.textualizer, GuardedTextualizer)
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{1}"], reason=["{All About Eve}"])
    )
    result = engine.run("which films share the director of [Cleopatra]", llm)
    communities = 1 + len(result.communities())
    # the tiny model writes nonsense: every community with triples falls back to Triple2Text
    assert 1 <= result.extra["textualizer_fallbacks"] <= communities
    assert engine.textualizer.fallbacks >= result.extra["textualizer_fallbacks"]
    config = FastToGConfig(width=1, grounded_answers=False, paths=PathSettings(max_hops=0))
    plain = FastToG(movie_store, config).run(
        "which films share the director of [Cleopatra]",
        ScriptedLLM.by_purpose(
            repeat_last=True, replies=dict(prune=["{1}"], reason=["{All About Eve}"])
        ),
    )
    assert "textualizer_fallbacks" not in plain.extra
    assert [c.text for c in result.communities()] == [c.text for c in plain.communities()]
