"""Causal Graph2Text without a model: the text kept from a reply, the settings' checks.

Training, loading and serving an adapter are tested in ``tests/unit/kgmodels/graph2text``.
"""

from __future__ import annotations

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.text.graph2text.causal import causal_prompt, first_line
from kgcore.text.graph2text.settings import G2TSettings


def test_the_prompt_holds_the_linearised_triples() -> None:
    assert causal_prompt("<H> a <R> b <T> c") == "Triples: <H> a <R> b <T> c\nText:"


def test_first_line_keeps_one_capped_line() -> None:
    assert first_line("  A b.\nTriples: x") == "A b."
    assert first_line("\n\n") == ""
    assert len(first_line("x" * 10_000)) == 2000


@pytest.mark.parametrize(
    "bad",
    [
        {"architecture": "rnn"},
        {"max_source_tokens": 0},
    ],
)
def test_settings_are_checked_when_made(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        G2TSettings(**bad)  # type: ignore[arg-type]
