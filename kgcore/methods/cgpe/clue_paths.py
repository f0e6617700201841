"""CGPE's paths and their candidate steps: a path from an initial point with the clue each
step matched (:class:`CluePath`), a neighbour of a path's end that may extend it
(:class:`Candidate`), and the node type labels of information matching
(:func:`graph_type_of`).

Example
-------
>>> from kgcore.types import Triple
>>> CluePath(("Cleopatra",)).extend(Triple("Cleopatra", "directed_by", "Joseph"), "director").text()
'Cleopatra -directed by-> Joseph'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from kgcore.graph.store import GraphStore
from kgcore.text.relations import Verbalizer, verbalize_relation
from kgcore.types import Triple


@dataclass(frozen=True)
class CluePath:
    """A path from an initial point, with the clue each step matched."""

    nodes: tuple[str, ...]
    triples: tuple[Triple, ...] = ()
    clues: tuple[str, ...] = ()

    def extend(self, triple: Triple, clue: str) -> CluePath:
        return CluePath(
            self.nodes + (triple.other(self.nodes[-1]),),
            self.triples + (triple,),
            self.clues + (clue,),
        )

    def text(self, verbalize: Verbalizer = verbalize_relation) -> str:
        """``A -directed by-> B <-starred actors- C`` (relations through ``verbalize``)."""
        parts = [self.nodes[0]]
        for node, triple, nxt in zip(self.nodes[:-1], self.triples, self.nodes[1:], strict=True):
            relation = verbalize(triple.relation)
            arrow = f"-{relation}->" if triple.head == node else f"<-{relation}-"
            parts.append(f"{arrow} {nxt}")
        return " ".join(parts)


@dataclass(frozen=True)
class Candidate:
    """A neighbour of path ``path``'s end, reached by ``triple``: the step that may extend it,
    with its relation text and its type label (``typed``: the node's type, not the relation
    that reached it)."""

    path: int
    triple: Triple
    node: str
    relation: str
    label: str

    typed: bool = False  # the label is the node's type, not the relation that reached it

    @property
    def summary(self) -> str:
        """What information matching's step 1 shows: ``relation -> label``, or the relation."""
        return f"{self.relation} -> {self.label}" if self.typed else self.relation


def graph_type_of(store: GraphStore, key: str = "type") -> Callable[[str], str | None] | None:
    """The graph's own node-type lookup, or ``None`` when it has no type property."""
    store = getattr(store, "inner", store)  # a CompoundNodeView: the types of its store
    method = getattr(store, "node_type", None)
    if callable(method):
        return cast(Callable[[str], str | None], method)
    graph = getattr(store, "graph", None)
    nodes = getattr(graph, "nodes", None)
    if nodes is None:
        return None
    try:
        has_types = any(key in data for _, data in nodes(data=True))
    except TypeError:
        return None
    if not has_types:
        return None

    def type_of(name: str) -> str | None:
        value = nodes[name].get(key) if name in nodes else None
        return str(value) if value else None

    return type_of
