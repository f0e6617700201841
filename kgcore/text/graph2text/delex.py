"""Delexicalisation: entities become placeholders before a small model sees them.

A model trained from scratch on WebNLG's 7k entries cannot learn to spell the thousands of
entity names, and has never seen the unseen categories' names at all. As the WebNLG 2017
systems did, each distinct entity of the input becomes a placeholder (``ENT0``, ``ENT1``, ...,
in order of first appearance), the model learns to place placeholders, and
:func:`relexicalize` puts the names back after generation.

Example
-------
>>> from kgcore.types import Triple
>>> d = delexicalize([Triple("Aarhus Airport", "city served", "Aarhus")],
...                  "Aarhus Airport serves the city of Aarhus.")
>>> d.triples, d.target
([Triple(head='ENT0', relation='city served', tail='ENT1')], 'ENT0 serves the city of ENT1.')
>>> relexicalize("ENT0 is in ENT1.", d.mapping)
'Aarhus Airport is in Aarhus.'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.types import Triple

#: Placeholders in the tokenizer's vocabulary: WebNLG has at most 7 triples (14 entities).
MAX_PLACEHOLDERS = 32
PLACEHOLDERS = tuple(f"ENT{i}" for i in range(MAX_PLACEHOLDERS))
_PLACEHOLDER = re.compile(r"ENT(\d+)")


@dataclass(frozen=True)
class Delexicalized:
    """Triples (and target) with entities replaced; ``mapping`` maps placeholder -> name."""

    triples: list[Triple]
    target: str | None
    mapping: dict[str, str]


def _variants(name: str) -> list[str]:
    """Ways a name appears in text: itself, without a trailing parenthetical, without commas."""
    variants = [name]
    bare = re.sub(r"\s*\([^)]*\)\s*$", "", name).strip()
    if bare and bare != name:
        variants.append(bare)
    first = name.split(",")[0].strip()
    if first and first not in variants and len(first) > 3:
        variants.append(first)
    return variants


def delexicalize(triples: Sequence[Triple], target: str | None = None) -> Delexicalized:
    """Replace each distinct entity by a placeholder, in the triples and in ``target``.

    Names are replaced in the target longest first and case-insensitively at word
    boundaries; a name the target words differently stays as it is (the model then learns
    it as words, as a fine-tuned model would).
    """
    mapping: dict[str, str] = {}
    by_name: dict[str, str] = {}
    for h, _, t in triples:
        for name in (h, t):
            if name not in by_name and len(by_name) < MAX_PLACEHOLDERS:
                placeholder = PLACEHOLDERS[len(by_name)]
                by_name[name] = placeholder
                mapping[placeholder] = name
    delex = [Triple(by_name.get(h, h), r, by_name.get(t, t)) for h, r, t in triples]
    text = target
    if text is not None:
        candidates = [(v, p) for name, p in by_name.items() for v in _variants(name)]
        candidates.sort(key=lambda item: (-len(item[0]), item[1]))
        for variant, placeholder in candidates:
            pattern = re.compile(rf"(?<![\w]){re.escape(variant)}(?![\w])", re.IGNORECASE)
            text = pattern.sub(placeholder, text)
    return Delexicalized(delex, text, mapping)


_SPACE_BEFORE_PUNCT = re.compile(r"(ENT\d+) (?=[,.;:!?)'’])")


def relexicalize(text: str, mapping: dict[str, str]) -> str:
    """Put the names back; an unknown placeholder (the model invented it) is dropped.

    The tokenizer decodes a placeholder with a space after it (``ENT0 's``): that space is
    removed before punctuation.

    >>> relexicalize("ENT0 's home is ENT1 , ENT9 .", {"ENT0": "Ann", "ENT1": "Rome"})
    "Ann's home is Rome, ."
    """
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _PLACEHOLDER.sub(lambda m: mapping.get(m.group(0), ""), text)
    return re.sub(r" {2,}", " ", text).strip()
