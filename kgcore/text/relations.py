"""Relation names written the way a person reads them.

Knowledge graphs name relations for machines: ``people.person.place_of_birth`` (Freebase),
``__people__person__gender`` (PathQuestion's Freebase dump), ``/film/film/directed_by``,
``directed_by`` (MetaQA). Every prompt that shows a relation writes it through a verbaliser:
:func:`verbalize_relation` keeps the last segment of a dotted, slashed or double-underscored
path and reads underscores as spaces. A compound relation (two legs through an unnamed node,
see :mod:`kgcore.graph.compound`) is written as its legs joined by a comma, a leg read against
its direction followed by "of": one fact, "government positions held, office position or title".

:class:`RelationVerbalizer` makes it configurable: names of your own for some relations, and
``style="raw"`` to show relations as stored. A verbaliser is any callable ``str -> str``.

Examples
--------
>>> verbalize_relation("people.person.place_of_birth")
'place of birth'
>>> verbalize_relation("__people__person__gender"), verbalize_relation("directed_by")
('gender', 'directed by')
>>> verbalize_relation("film.actor.film / ^film.film.starring")
'film, starring of'
>>> own = RelationVerbalizer({"people.person.place_of_birth": "was born in"})
>>> own("people.person.place_of_birth")
'was born in'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, get_args

from kgcore.exceptions import InvalidSettingError
from kgcore.graph.compound import relation_legs

#: How relations are shown: readably (:func:`verbalize_relation`) or as stored.
RelationStyle = Literal["readable", "raw"]
#: A verbaliser: a relation name as stored -> its text in a prompt.
Verbalizer = Callable[[str], str]

_PATH_SEPARATORS = re.compile(r"__|[./]")


def relation_segment(relation: str) -> str:
    """The last non-empty segment of a relation path (``.``, ``/`` or ``__`` separated).

    >>> relation_segment("/people/person/place_of_birth"), relation_segment("__music__album__x")
    ('place_of_birth', 'x')
    """
    parts = [p for p in _PATH_SEPARATORS.split(relation) if p.strip(" _")]
    return parts[-1] if parts else relation


def _leg_phrase(name: str, inverse: bool) -> str:
    phrase = " ".join(relation_segment(name).replace("_", " ").split()) or name.strip()
    return f"{phrase} of" if inverse else phrase


def verbalize_relation(relation: str) -> str:
    """A relation as a person reads it (see the module docstring).

    Total: any string gives a string; one with nothing readable is returned stripped.

    >>> verbalize_relation("release_year"), verbalize_relation("capable of")
    ('release year', 'capable of')
    """
    legs = relation_legs(str(relation))
    return ", ".join(_leg_phrase(name, inverse) for name, inverse in legs)


class RelationVerbalizer:
    """A configurable verbaliser.

    Parameters
    ----------
    names : mapping, optional
        Texts of your own for some relations (as stored); they win over ``style``.
    style : {"readable", "raw"}
        ``"readable"``: :func:`verbalize_relation`; ``"raw"``: the relation as stored.

    Examples
    --------
    >>> RelationVerbalizer(style="raw")("people.person.gender")
    'people.person.gender'
    >>> RelationVerbalizer({"directed_by": "was directed by"})("directed_by")
    'was directed by'
    """

    def __init__(
        self, names: Mapping[str, str] | None = None, style: RelationStyle = "readable"
    ) -> None:
        if style not in get_args(RelationStyle):
            raise InvalidSettingError(
                f"relation style must be one of {', '.join(get_args(RelationStyle))}, got {style!r}"
            )
        for key, value in (names or {}).items():
            if not isinstance(key, str) or not isinstance(value, str) or not value.strip():
                raise InvalidSettingError(
                    f"relation names map relation -> non-empty text, got {key!r}: {value!r}"
                )
        self.names = dict(names or {})
        self.style = style

    def __call__(self, relation: str) -> str:
        if relation in self.names:
            return self.names[relation]
        return relation if self.style == "raw" else verbalize_relation(relation)

    def __repr__(self) -> str:
        return f"RelationVerbalizer(names={len(self.names)}, style={self.style!r})"


def distinct_phrases(
    relations: Sequence[str], verbalize: Verbalizer = verbalize_relation
) -> list[str]:
    """The texts of ``relations`` for one list of options: verbalised, and where two
    relations read the same, each written with the segment before its last one in front, then
    as stored, so that every option can still be told apart.

    >>> distinct_phrases(["film.film.country", "location.location.country", "people.person.gender"])
    ['film country', 'location country', 'gender']
    """
    levels = [_readings(r, verbalize) for r in relations]
    chosen = [0] * len(relations)
    for _ in range(3):
        texts = [levels[i][chosen[i]] for i in range(len(relations))]
        counts: dict[str, int] = {}
        for text in texts:
            counts[text] = counts.get(text, 0) + 1
        clashes = [i for i, text in enumerate(texts) if counts[text] > 1]
        if not clashes:
            break
        for i in clashes:
            chosen[i] = min(chosen[i] + 1, len(levels[i]) - 1)
    return [levels[i][chosen[i]] for i in range(len(relations))]


def _readings(relation: str, verbalize: Verbalizer) -> list[str]:
    """A relation's texts, shortest first: verbalised, with one more path segment, as stored."""
    text = verbalize(relation)
    parts = [p for p in _PATH_SEPARATORS.split(relation) if p.strip(" _")]
    readings = [text]
    if len(relation_legs(relation)) == 1 and len(parts) >= 2:
        readings.append(f"{parts[-2].replace('_', ' ').strip()} {text}")
    readings.append(relation)
    return readings
