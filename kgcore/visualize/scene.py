"""What a picture of a reasoning run shows, before anything is drawn.

A :class:`Scene` lists the nodes and edges of a picture with their style (colour, size, shape,
fading, the answer's ring, a depth number). Each result type builds its scene
(:mod:`.fasttog`, :mod:`.gretriever`, :mod:`.paths`) and :func:`~kgcore.visualize.render.render`
draws any scene, so the rules of a picture are tested without drawing it.

Example
-------
>>> scene = Scene(title="who directed [Cleopatra]")
>>> _ = scene.add_node("Cleopatra", colour=TOPIC_COLOUR, shape="s", legend="topic entity")
>>> _ = scene.add_node("J. L. Mankiewicz", colour=chain_colour(0), badge="1", layer=1)
>>> _ = scene.add_edge("Cleopatra", "J. L. Mankiewicz", label="directed_by")
>>> [n.name for n in scene.nodes], scene.edges[0].label
(['Cleopatra', 'J. L. Mankiewicz'], 'directed_by')
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgcore.exceptions import KGRetrieverError
from kgcore.graph.names import normalize_name
from kgcore.types import Triple

# The colour-blind-friendly "tab10" cycle, spelled out so scenes need no matplotlib.
CHAIN_COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
)
TOPIC_COLOUR = "#303030"
PRUNED_COLOUR = "#b0b0b0"
PRUNED_ALPHA = 0.35
ANSWER_RING = "#f5b400"
CONNECTOR_COLOUR = "#9ecae1"
MAX_LABEL_CHARS = 24

_ANSWER_SPLIT = re.compile(r"\s*[,;|\n]\s*")
_AND_SPLIT = re.compile(r"\s+and\s+", re.IGNORECASE)


class DrawingError(KGRetrieverError, ValueError):
    """A picture cannot be drawn as asked (file format, size, ...)."""


class NothingToDrawError(DrawingError):
    """A result holds nothing a picture could show (no graph was explored)."""


def chain_colour(index: int) -> str:
    """The colour of chain (or path) ``index``; the cycle repeats after nine.

    Example
    -------
    >>> chain_colour(0), chain_colour(9)
    ('#1f77b4', '#1f77b4')
    """
    return CHAIN_COLOURS[index % len(CHAIN_COLOURS)]


def short_label(name: str, limit: int = MAX_LABEL_CHARS) -> str:
    """``name`` cut to ``limit`` characters with an ellipsis.

    Example
    -------
    >>> short_label("A Very Long Film Title Indeed, Part Two", limit=12)
    'A Very Long…'
    """
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


@dataclass
class SceneNode:
    """One node of a picture.

    ``badge`` is drawn inside the node (a depth number), ``ring`` around it (the answer),
    ``layer`` places it left to right (depth), ``legend`` names its group in the legend.
    """

    key: Hashable
    name: str
    colour: str = CONNECTOR_COLOUR
    size: float = 300.0
    alpha: float = 1.0
    shape: str = "o"
    badge: str = ""
    ring: str | None = None
    layer: int = 0
    legend: str = ""


@dataclass
class SceneEdge:
    """One edge of a picture, between two node keys."""

    source: Hashable
    target: Hashable
    label: str = ""
    colour: str = "#808080"
    alpha: float = 1.0
    width: float = 1.2
    dashed: bool = False


@dataclass
class Scene:
    """The nodes and edges of a picture, in drawing order, with a title and a note."""

    title: str
    note: str = ""
    nodes: list[SceneNode] = field(default_factory=list)
    edges: list[SceneEdge] = field(default_factory=list)
    _index: dict[Hashable, int] = field(default_factory=dict, repr=False)

    def add_node(
        self, key: Hashable, name: str | None = None, *, replace: bool = False, **style: Any
    ) -> SceneNode:
        """Add a node (``name`` defaults to ``str(key)``); an existing one is kept as it is
        unless ``replace`` is set, so the first, most important role of a node wins."""
        if key in self._index and not replace:
            return self.nodes[self._index[key]]
        node = SceneNode(key=key, name=str(key) if name is None else name, **style)
        if key in self._index:
            self.nodes[self._index[key]] = node
        else:
            self._index[key] = len(self.nodes)
            self.nodes.append(node)
        return node

    def node(self, key: Hashable) -> SceneNode | None:
        """The node with this key, or ``None``."""
        index = self._index.get(key)
        return None if index is None else self.nodes[index]

    def add_edge(self, source: Hashable, target: Hashable, **style: Any) -> SceneEdge:
        """Add an edge between two nodes already in the scene."""
        for end in (source, target):
            if end not in self._index:
                raise KeyError(f"edge end {end!r} is not a node of the scene")
        edge = SceneEdge(source=source, target=target, **style)
        self.edges.append(edge)
        return edge

    def has_edge(self, source: Hashable, target: Hashable) -> bool:
        """Whether an edge joins the two nodes, either way round."""
        return any({e.source, e.target} == {source, target} for e in self.edges)


def answer_matches(answer: str, names: Iterable[str]) -> list[str]:
    """The node names an answer names, in the order given.

    A name matches when it equals the whole answer or one of its parts (split at commas,
    semicolons, bars and line breaks), or a part of a part split at "and" (so a title with
    "and" in it still matches whole), ignoring case and spacing.

    Example
    -------
    >>> answer_matches("Drama, Joseph L. Mankiewicz", ["Cleopatra", "joseph l.  mankiewicz"])
    ['joseph l.  mankiewicz']
    >>> answer_matches("All About Eve; Guys and Dolls", ["Guys and Dolls", "All About Eve"])
    ['Guys and Dolls', 'All About Eve']
    """
    whole = normalize_name(answer)
    if not whole:
        return []
    pieces = [p for p in _ANSWER_SPLIT.split(answer) if p.strip()]
    pieces += [q for p in pieces for q in _AND_SPLIT.split(p) if q.strip()]
    parts = {whole} | {normalize_name(p) for p in pieces}
    return [name for name in names if normalize_name(name) in parts]


def keep_core_and_neighbours(
    core: Sequence[str], triples: Iterable[Triple], max_nodes: int
) -> list[str]:
    """The nodes a large picture keeps: every ``core`` node, then their neighbours.

    Neighbours come breadth first from the core, in the order of ``core`` and of ``triples``
    (never a set's order), until ``max_nodes`` nodes are kept. The core is kept whole even
    when it alone exceeds ``max_nodes``.

    Example
    -------
    >>> t = [Triple("a", "r", "b"), Triple("b", "r", "c"), Triple("a", "r", "d")]
    >>> keep_core_and_neighbours(["a"], t, max_nodes=3)
    ['a', 'b', 'd']
    """
    adjacency: dict[str, list[str]] = {}
    for head, _, tail in triples:
        adjacency.setdefault(head, []).append(tail)
        adjacency.setdefault(tail, []).append(head)
    kept = list(dict.fromkeys(core))
    seen = set(kept)
    frontier = list(kept)
    while frontier and len(kept) < max_nodes:
        following: list[str] = []
        for node in frontier:
            for other in adjacency.get(node, ()):
                if other in seen:
                    continue
                if len(kept) >= max_nodes:
                    return kept
                seen.add(other)
                kept.append(other)
                following.append(other)
        frontier = following
    return kept


def check_max_nodes(max_nodes: int) -> int:
    """``max_nodes`` if it is a usable picture size, else a clear error."""
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise DrawingError(f"max_nodes must be a positive integer, got {max_nodes!r}")
    return max_nodes
