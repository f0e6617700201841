"""Small value types shared by every part of the core.

Example
-------
>>> from kgcore.types import Triple
>>> t = Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz")
>>> t.other("Cleopatra")
'Joseph L. Mankiewicz'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class Triple(NamedTuple):
    """A directed, labelled edge ``head -[relation]-> tail``."""

    head: str
    relation: str
    tail: str

    def other(self, node: str) -> str:
        """The endpoint that is not ``node`` (``node`` itself for a self-loop)."""
        return self.tail if self.head == node else self.head

    def direction_from(self, node: str) -> str:
        """``"out"`` when ``node`` is the head, ``"in"`` when it is the tail."""
        return "out" if self.head == node else "in"


class QualifiedTriple(Triple):
    """A triple with a note that qualifies its fact (a relationship's properties: Keanu Reeves
    ACTED_IN The Matrix, ``roles: Neo``). It equals, hashes and sorts as the plain triple; the
    note is shown beside the fact in a community's text (:class:`~kgcore.text.Triple2Text`).

    >>> t = qualified(Triple("Keanu Reeves", "ACTED_IN", "The Matrix"), "roles: Neo")
    >>> t.qualifier, t == Triple("Keanu Reeves", "ACTED_IN", "The Matrix")
    ('roles: Neo', True)
    """

    qualifier: str = ""


def qualifier_of(triple: Triple | Sequence[str]) -> str:
    """The note qualifying ``triple``'s fact (:class:`QualifiedTriple`), or ``""``.

    >>> qualifier_of(qualified(Triple("a", "r", "b"), "roles: Neo")), qualifier_of(("a", "r", "b"))
    ('roles: Neo', '')
    """
    return str(getattr(triple, "qualifier", ""))


def qualified(triple: Triple, note: str) -> Triple:
    """``triple`` with ``note`` as its qualifier (the plain triple for an empty note)."""
    if not note:
        return triple
    found = QualifiedTriple(*triple)
    found.qualifier = note
    return found


def neighbor_sort_key(node: str, triple: Triple) -> tuple[str, str, int]:
    """The canonical order of a node's incident triples.

    Every graph store returns neighbours in this order (other endpoint's name, relation,
    outgoing before incoming), so that a neighbour cap and seeded sampling pick the same
    nodes on every backend.
    """
    return (triple.other(node), triple.relation, 0 if triple.head == node else 1)
