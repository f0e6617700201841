"""Triples to the T5 WebNLG input string, ``<H> s <R> p <T> o ...``.

WebNLG writes entities with underscores and quotes (``Aarhus_Airport``, ``"Aarhus, Denmark"``)
and relations in camelCase (``cityServed``); the T5 WebNLG papers read both as words.

Example
-------
>>> from kgcore.types import Triple
>>> linearize([Triple("Aarhus_Airport", "cityServed", '"Aarhus, Denmark"')])
'<H> Aarhus Airport <R> city served <T> Aarhus, Denmark'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from kgcore.types import Triple

HEAD, RELATION, TAIL = "<H>", "<R>", "<T>"
MARKERS = (HEAD, RELATION, TAIL)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPACES = re.compile(r"\s+")


def entity_text(name: str) -> str:
    """A WebNLG or graph entity as plain words: no underscores, outer quotes or extra spaces.

    >>> entity_text('"Aarhus, Denmark"')
    'Aarhus, Denmark'
    """
    text = name.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    return _SPACES.sub(" ", text.replace("_", " ")).strip()


def relation_text(relation: str) -> str:
    """A relation as words: camelCase and underscores split, a dotted path keeps its last part.

    >>> relation_text("elevationAboveTheSeaLevel_(in_metres)")
    'elevation above the sea level (in metres)'
    >>> relation_text("directed_by")
    'directed by'
    """
    last = relation.rsplit(".", 1)[-1].rsplit("/", 1)[-1]
    words = _CAMEL.sub(" ", last).replace("_", " ")
    return _SPACES.sub(" ", words).strip().lower()


def plain_triples(triples: Iterable[Sequence[str]]) -> list[Triple]:
    """Triples with entities and relations read as words (see :func:`entity_text`)."""
    return [Triple(entity_text(h), relation_text(r), entity_text(t)) for h, r, t in triples]


def linearize(triples: Iterable[Sequence[str]]) -> str:
    """The ``<H> s <R> p <T> o`` string of the T5 WebNLG literature, one group per triple."""
    return " ".join(f"{HEAD} {h} {RELATION} {r} {TAIL} {t}" for h, r, t in plain_triples(triples))
