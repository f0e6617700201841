"""Label placement for pictures: every name where it overlaps no other label, or not at all.

Labels are placed one at a time in order of importance (:class:`LabelRequest.priority`: the
topic entities and the answer first, then the chains' nodes and relations, then the faded
candidates). Each label tries a few positions around its node (below, above, right, left, the
diagonals, then farther out) or along its edge (the middle first, then towards the ends, on
the line and beside it), and takes the first position that overlaps no label placed before,
no fixed obstacle (the depth numbers inside nodes) and stays inside the drawing area; among
those it prefers one that covers no node. A label with no such position is left out, and the
picture's note says how many were.

The geometry is in display pixels and needs only the text's size, so it is tested without
drawing (:func:`place_labels`); :func:`kgcore.visualize.render.render` measures each text with
matplotlib's renderer and moves it to the chosen place.

Example
-------
>>> area = Box(0, 0, 200, 100)
>>> nodes = [Circle(50, 50, 8), Circle(70, 50, 8)]
>>> requests = [LabelRequest("a", (40, 12), priority=0, node=0),
...             LabelRequest("b", (40, 12), priority=0, node=1)]
>>> placed = place_labels(requests, nodes, area)
>>> [p is not None for p in placed], placed[0].overlaps(placed[1])
([True, True], False)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Gap in pixels kept between a label and its node, and between two labels.
GAP = 2.0


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in display pixels (``x0 <= x1``, ``y0 <= y1``)."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def centre(self) -> tuple[float, float]:
        """The box's centre."""
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    def overlaps(self, other: Box) -> bool:
        """Whether the two boxes share more than an edge.

        Example
        -------
        >>> box = Box(0, 0, 10, 10)
        >>> box.overlaps(Box(10, 0, 20, 10)), box.overlaps(Box(5, 5, 6, 6))
        (False, True)
        """
        return (
            self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1
        )

    def inside(self, other: Box) -> bool:
        """Whether this box lies within ``other``."""
        return (
            self.x0 >= other.x0
            and self.y0 >= other.y0
            and self.x1 <= other.x1
            and self.y1 <= other.y1
        )

    def grown(self, by: float) -> Box:
        """The box with ``by`` pixels added on every side."""
        return Box(self.x0 - by, self.y0 - by, self.x1 + by, self.y1 + by)


@dataclass(frozen=True)
class Circle:
    """A node's marker: centre and radius in display pixels."""

    x: float
    y: float
    r: float

    def hits(self, box: Box) -> bool:
        """Whether the circle and the box overlap."""
        nearest_x = min(max(self.x, box.x0), box.x1)
        nearest_y = min(max(self.y, box.y0), box.y1)
        return (self.x - nearest_x) ** 2 + (self.y - nearest_y) ** 2 < self.r**2


@dataclass(frozen=True)
class LabelRequest:
    """A label to place: its ``size`` (width, height in pixels), its ``priority`` (lower is
    placed first) and what it names: the index of a node, or the two ends of an edge."""

    key: object
    size: tuple[float, float]
    priority: int
    node: int | None = None
    edge: tuple[tuple[float, float], tuple[float, float]] | None = None


def _box_at(centre: tuple[float, float], size: tuple[float, float]) -> Box:
    (x, y), (w, h) = centre, size
    return Box(x - w / 2, y - h / 2, x + w / 2, y + h / 2)


def node_candidates(circle: Circle, size: tuple[float, float]) -> list[Box]:
    """Positions for a node's label: below, above, right, left, the diagonals, then farther.

    Example
    -------
    >>> below = node_candidates(Circle(0, 0, 5), (20, 10))[0]
    >>> below.y1 <= -5, below.centre[0]
    (True, 0.0)
    """
    w, h = size
    boxes = []
    for ring in (0.0, h + GAP, 2 * (h + GAP)):
        dy = circle.r + GAP + h / 2 + ring
        dx = circle.r + GAP + w / 2 + ring
        for ox, oy in (
            (0.0, -dy),
            (0.0, dy),
            (dx, 0.0),
            (-dx, 0.0),
            (dx * 0.8, -dy),
            (-dx * 0.8, -dy),
            (dx * 0.8, dy),
            (-dx * 0.8, dy),
        ):
            boxes.append(_box_at((circle.x + ox, circle.y + oy), size))
    return boxes


def edge_candidates(
    ends: tuple[tuple[float, float], tuple[float, float]], size: tuple[float, float]
) -> list[Box]:
    """Positions for an edge's label: on the line from its middle towards the ends, then
    beside the line.

    Example
    -------
    >>> edge_candidates(((0, 0), (100, 0)), (10, 4))[0].centre
    (50.0, 0.0)
    """
    (x0, y0), (x1, y1) = ends
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    nx, ny = -(y1 - y0) / length, (x1 - x0) / length  # unit normal
    side = abs(nx) * size[0] / 2 + abs(ny) * size[1] / 2 + GAP
    boxes = []
    for shift in (0.0, side, -side):
        for t in (0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78):
            centre = (x0 + t * (x1 - x0) + shift * nx, y0 + t * (y1 - y0) + shift * ny)
            boxes.append(_box_at(centre, size))
    return boxes


def place_labels(
    requests: Sequence[LabelRequest],
    nodes: Sequence[Circle],
    area: Box,
    obstacles: Sequence[Box] = (),
) -> list[Box | None]:
    """The box of each request (in ``requests``' order), or ``None`` where it was left out.

    Requests are placed by priority, then in the order given; no two placed boxes overlap,
    none overlaps an obstacle, and all lie inside ``area``. Among the free positions the first
    that covers the fewest nodes (other than the label's own) wins.
    """
    placed: list[Box] = [b.grown(GAP / 2) for b in obstacles]
    chosen: list[Box | None] = [None] * len(requests)
    order = sorted(range(len(requests)), key=lambda i: (requests[i].priority, i))
    for index in order:
        request = requests[index]
        if request.node is not None:
            candidates = node_candidates(nodes[request.node], request.size)
        elif request.edge is not None:
            candidates = edge_candidates(request.edge, request.size)
        else:
            continue
        best: tuple[int, Box] | None = None
        for box in candidates:
            padded = box.grown(GAP / 2)
            if not box.inside(area) or any(padded.overlaps(other) for other in placed):
                continue
            covered = sum(1 for i, node in enumerate(nodes) if i != request.node and node.hits(box))
            if best is None or covered < best[0]:
                best = (covered, box)
            if covered == 0:
                break
        if best is not None:
            chosen[index] = best[1]
            placed.append(best[1].grown(GAP / 2))
    return chosen
