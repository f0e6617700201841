"""The graph store protocol every backend implements.

A store answers the few questions the methods ask of a knowledge graph: does a node exist,
which names are closest to a string, which triples touch a node (or a whole frontier of nodes,
in one call so remote stores can batch), and which triples lie among a set of nodes.

Neighbours always come in the canonical order of :func:`kgcore.types.neighbor_sort_key`, so a
cap of ``limit`` neighbours keeps the same ones on every backend.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("a", "r", "b")])
>>> isinstance(store, GraphStore)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, runtime_checkable

from kgcore.exceptions import InvalidSettingError
from kgcore.types import Triple


def check_limit(limit: int | None) -> int | None:
    """A neighbour ``limit`` as every store takes it: ``None`` (all) or an integer >= 0.

    >>> check_limit(None), check_limit(3)
    (None, 3)
    >>> check_limit(-1)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: neighbour limit must be None or an integer >= 0, got -1
    """
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidSettingError(f"neighbour limit must be None or an integer >= 0, got {limit!r}")
    return limit


@runtime_checkable
class GraphStore(Protocol):
    """What the methods need from a knowledge graph."""

    def has_node(self, name: str) -> bool:
        """Whether a node with exactly this name exists."""
        ...

    def search_nodes(self, text: str, limit: int = 5) -> list[str]:
        """Node names closest to ``text``, best first.

        Exact and case- or spacing-insensitive matches come first, then fuzzy ones.
        """
        ...

    def neighbors(self, node: str, limit: int | None = None) -> list[Triple]:
        """Triples incident to ``node`` in canonical order, at most ``limit`` of them.

        A negative ``limit`` is refused (:func:`check_limit`) by every store.
        """
        ...

    def neighbors_batch(
        self, nodes: Iterable[str], limit: int | None = None
    ) -> Mapping[str, Sequence[Triple]]:
        """:meth:`neighbors` for a whole frontier in one call."""
        ...

    def triples_among(self, nodes: Iterable[str]) -> list[Triple]:
        """Every triple whose head and tail are both in ``nodes``, sorted."""
        ...

    def num_nodes(self) -> int:
        """How many nodes the graph holds."""
        ...

    def num_triples(self) -> int:
        """How many triples the graph holds."""
        ...
