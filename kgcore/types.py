"""Small value types shared by every part of the core.

Example
-------
>>> from kgcore.types import Triple
>>> t = Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz")
>>> t.other("Cleopatra")
'Joseph L. Mankiewicz'
"""

from __future__ import annotations

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


def neighbor_sort_key(node: str, triple: Triple) -> tuple[str, str, int]:
    """The canonical order of a node's incident triples.

    Every graph store returns neighbours in this order (other endpoint's name, relation,
    outgoing before incoming), so that a neighbour cap and seeded sampling pick the same
    nodes on every backend.
    """
    return (triple.other(node), triple.relation, 0 if triple.head == node else 1)
