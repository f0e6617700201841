"""Helpers for the tests of the default Graph2Text choice (issue 50): simulate an install with
or without the ``g2t`` extra, and replace model loading by a recorder (no weights read)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.gretriever.gnn import local_llm
from kgcore.text.graph2text import default
from kglocal.locations import G2T_MODEL_NAME, G2T_SMOLLM2_NAME
from tests.support.paths import REPO

SMOLLM2 = REPO / "models" / G2T_SMOLLM2_NAME
T5 = REPO / "models" / G2T_MODEL_NAME
#: ``(packages missing, model chosen)``: with the extra, and without peft.
BOTH_WAYS = [((), G2T_SMOLLM2_NAME), (("peft",), G2T_MODEL_NAME)]


def simulate_runnable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every package importable and SmolLM2's base model converted, whatever is installed."""
    monkeypatch.delenv("KG_G2T_MODEL", raising=False)
    monkeypatch.setattr(default, "installed", lambda package: True)
    monkeypatch.setattr(local_llm, "is_converted", lambda folder: True)


def without(monkeypatch: pytest.MonkeyPatch, *packages: str) -> None:
    """Simulate an install without ``packages`` (the rest importable)."""
    monkeypatch.setattr(default, "installed", lambda package: package not in packages)


class FakeModel:
    """A stand-in for a loaded Graph2Text: one rule sentence per triple."""

    def __init__(self, where: str) -> None:
        self.where = where

    def generate(self, communities: Any) -> list[str]:
        return [" ".join(f"{h} {r} {t}." for h, r, t in c) for c in communities]


def fake_loading(monkeypatch: pytest.MonkeyPatch, fail_on: str | None = None) -> list[str]:
    """``Graph2Text.from_pretrained`` replaced: records the folder names loaded, and fails on a
    path holding ``fail_on``."""
    from kgcore.text.graph2text.model import Graph2Text

    loaded: list[str] = []

    def from_pretrained(where: Any, **options: Any) -> FakeModel:
        if fail_on is not None and fail_on in str(where):
            raise ConfigurationError("cannot load: the base model's cache is broken")
        loaded.append(Path(where).name)
        return FakeModel(str(where))

    monkeypatch.setattr(Graph2Text, "from_pretrained", staticmethod(from_pretrained))
    return loaded
