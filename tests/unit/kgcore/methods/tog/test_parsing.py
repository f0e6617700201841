"""ToG's reply readers: scored letters and the reasoning verdict."""

from __future__ import annotations

import pytest

from kgcore.methods.tog import parse_scores, parse_sufficiency


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{A: 0.6, C: 0.4}", {0: 0.6, 2: 0.4}),
        ("A (Score: 0.7)\nB (Score: 0.3)", {0: 0.7, 1: 0.3}),
        ("{B}", {1: 1.0}),
        ("{none}", {}),
        ("{A: 0.2, B: 0.3, C: 0.5}", {2: 0.5, 1: 0.3}),
        ("I do not know what\nto pick here.", None),
    ],
)
def test_parse_scores(text: str, expected: dict[int, float] | None) -> None:
    assert parse_scores(text, n_options=3, max_choices=2) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yes {Cobra}", (True, "Cobra")),
        ("{Yes}. The answer is {Cobra}.", (True, "Cobra")),
        ("No, more is needed.", (False, None)),
        ("{No}", (False, None)),
        ("{Red Sonja, Cobra}", (True, "Red Sonja, Cobra")),
        ("{Cobra}", (True, "Cobra")),
        ("{Unknown}", (False, None)),
        ("Yes", None),
        ("It depends", None),
    ],
)
def test_parse_sufficiency(text: str, expected: tuple[bool, str | None] | None) -> None:
    assert parse_sufficiency(text) == expected
