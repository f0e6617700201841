"""Community-to-text conversion: the protocol and the rule-based Triple2Text.

A :class:`CommunityTextualizer` turns a community (its nodes and triples) into text for the
LLM. :class:`Triple2Text` is the paper's rule-based conversion, the relation's underscores read
as spaces; by default it merges the subjects that share a relation and tail and writes one
sentence per subject and relation (``merge_shared=False, sentence_per="triple"`` gives the
paper's one sentence per triple). Graph2Text (a fine-tuned T5) implements the same protocol.

Example
-------
>>> from kgcore.types import Triple, qualifier_of
>>> Triple2Text()(["Cleopatra"], [Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
...                               Triple("Cleopatra", "release_year", "1963")])
'Cleopatra directed by Joseph L. Mankiewicz. Cleopatra release year 1963.'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, get_args, runtime_checkable

from kgcore.exceptions import ConfigurationError, InvalidSettingError
from kgcore.text.relations import Verbalizer, verbalize_relation
from kgcore.types import Triple, qualifier_of

#: What one Triple2Text sentence holds: see :class:`Triple2Text`'s ``sentence_per``.
SentenceUnit = Literal["relation", "triple", "subject"]
#: The values of :data:`SentenceUnit`.
SENTENCE_UNITS: tuple[str, ...] = get_args(SentenceUnit)


@runtime_checkable
class CommunityTextualizer(Protocol):
    """Turns a community's nodes and triples into text."""

    def __call__(self, nodes: Sequence[str], triples: Sequence[Triple]) -> str: ...


def texts_of(
    textualizer: CommunityTextualizer,
    communities: Sequence[tuple[Sequence[str], Sequence[Triple]]],
) -> list[str]:
    """The text of each ``(nodes, triples)`` community, in order: in one batch when the
    textualizer writes batches (a ``texts`` method, as Graph2Text's guarded textualizer has),
    else one call each.

    >>> texts_of(Triple2Text(), [(["Shane"], [Triple("Shane", "directed_by", "George Stevens")])])
    ['Shane directed by George Stevens.']
    """
    batched = getattr(textualizer, "texts", None)
    if callable(batched):
        return list(batched(communities))
    return [textualizer(nodes, triples) for nodes, triples in communities]


def relation_phrase(relation: str) -> str:
    """``"directed_by"`` -> ``"directed by"``; a Freebase-style path keeps its last part
    (:func:`~kgcore.text.relations.verbalize_relation`)."""
    return verbalize_relation(relation)


def _join(names: Sequence[str]) -> str:
    """Merged names joined by semicolons: titles contain "and" and commas themselves
    ("Guys and Dolls"), and the local model merged "A and B" into one answer."""
    return "; ".join(names)


class Triple2Text:
    """Rule-based Triple2Text.

    Parameters
    ----------
    max_triples : int, optional
        Keep at most this many triples (prompts stay lean); the rest are counted in a note.
    merge_shared : bool
        Merge triples that share relation and tail into one sentence
        (``"A; B directed by X."``): the same facts in fewer tokens, which small models read
        more reliably. ``merge_shared=False, sentence_per="triple"`` gives the paper's one
        sentence per triple.
    sentence_per : {"relation", "triple", "subject"}
        What one sentence holds.

        - ``"relation"`` (the default): one subject's objects of one relation, joined by
          semicolons (``"A starred actors Y; Z. A release year 1990."``); a subject's sentences
          stay together.
        - ``"triple"``: one triple (or, with ``merge_shared``, the subjects that share it).
        - ``"subject"``: all of one subject's relations, separated by commas
          (``"A starred actors Y; Z, release year 1990."``). The shortest text, but the local
          1.5B model overlooked facts at the end of long sentences (the runs:
          ``docs/research/fasttog_deviations.md#triple2text``).
    verbalize : callable
        How a relation is written (:func:`~kgcore.text.relations.verbalize_relation` by
        default: ``people.person.place_of_birth`` as "place of birth"; a
        :class:`~kgcore.text.relations.RelationVerbalizer` for names of your own).

    Examples
    --------
    >>> from kgcore.types import Triple, qualifier_of
    >>> triples = [Triple("A", "directed_by", "X"), Triple("B", "directed_by", "X")]
    >>> Triple2Text()(["A", "B", "X"], triples)
    'A; B directed by X.'
    >>> Triple2Text(merge_shared=False, sentence_per="triple")(["A", "B", "X"], triples)
    'A directed by X. B directed by X.'
    >>> film = [Triple("A", "starred_actors", "Y"), Triple("A", "release_year", "1990"),
    ...         Triple("A", "starred_actors", "Z")]
    >>> Triple2Text()(["A"], film)
    'A starred actors Y; Z. A release year 1990.'
    >>> Triple2Text(sentence_per="subject")(["A"], film)
    'A starred actors Y; Z, release year 1990.'
    >>> Triple2Text(sentence_per="triple")(["A"], film)
    'A starred actors Y. A release year 1990. A starred actors Z.'
    """

    def __init__(
        self,
        max_triples: int | None = None,
        merge_shared: bool = True,
        sentence_per: SentenceUnit = "relation",
        verbalize: Verbalizer = verbalize_relation,
    ) -> None:
        if sentence_per not in get_args(SentenceUnit):
            raise InvalidSettingError(
                f"sentence_per must be one of {get_args(SentenceUnit)}, not {sentence_per!r}"
            )
        self.max_triples = max_triples
        self.merge_shared = merge_shared
        self.sentence_per = sentence_per
        if not callable(verbalize):
            raise ConfigurationError(
                f"verbalize must be a callable, not {type(verbalize).__name__}"
            )
        self.verbalize = verbalize

    def sentence(self, triple: Triple) -> str:
        """One triple as a sentence (``sentence_per="triple"``); merged subjects come joined."""
        return f"{triple.head} {self.verbalize(triple.relation)} {triple.tail}."

    def __call__(self, nodes: Sequence[str], triples: Sequence[Triple]) -> str:
        if not triples:
            return ", ".join(nodes) + "."
        shown = list(triples) if self.max_triples is None else list(triples)[: self.max_triples]
        items: list[tuple[tuple[str, ...], str, str]]  # (subjects, relation, object)
        if self.merge_shared:
            heads: dict[tuple[str, str], list[str]] = {}
            for head, relation, tail in shown:  # insertion order: first appearance wins
                heads.setdefault((relation, tail), []).append(head)
            items = [(tuple(names), relation, tail) for (relation, tail), names in heads.items()]
        else:
            items = [((head,), relation, tail) for head, relation, tail in shown]
        if self.sentence_per == "triple":
            text = " ".join(
                self.sentence(Triple(_join(names), relation, tail))
                for names, relation, tail in items
            )
        else:
            # subjects -> relation -> objects, each in order of first appearance
            grouped: dict[tuple[str, ...], dict[str, list[str]]] = {}
            for names, relation, tail in items:
                grouped.setdefault(names, {}).setdefault(relation, []).append(tail)
            clauses = {
                names: [f"{self.verbalize(rel)} {_join(tails)}" for rel, tails in rels.items()]
                for names, rels in grouped.items()
            }
            if self.sentence_per == "subject":
                text = " ".join(
                    f"{_join(names)} {', '.join(parts)}." for names, parts in clauses.items()
                )
            else:
                text = " ".join(
                    f"{_join(names)} {part}." for names, parts in clauses.items() for part in parts
                )
        notes = [
            f"{t.head} {self.verbalize(t.relation)} {t.tail}, with {note}."
            for t in shown
            if (note := qualifier_of(t))
        ]
        if notes:  # a relationship's properties (roles), beside the facts they qualify
            text += " " + " ".join(notes)
        hidden = len(triples) - len(shown)
        return text + (f" (+{hidden} more facts)" if hidden else "")
