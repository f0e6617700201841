"""Draw a :class:`~kgcore.visualize.scene.Scene` to an image file with networkx and matplotlib.

matplotlib is imported only here, when a picture is drawn; without it the error names the
extra that installs it. The figure is a plain :class:`matplotlib.figure.Figure` (no pyplot
state, no GUI backend), saved at exactly ``figsize * dpi`` pixels.

Example
-------
>>> import tempfile, pathlib
>>> from kgcore.visualize.scene import Scene
>>> scene = Scene(title="q")
>>> _ = scene.add_node("a"); _ = scene.add_node("b"); _ = scene.add_edge("a", "b", label="r")
>>> out = render(scene, pathlib.Path(tempfile.mkdtemp()) / "q.png", figsize=(4, 3), dpi=50)
>>> out.suffix, out.stat().st_size > 0
('.png', True)
"""

from __future__ import annotations

import textwrap
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import networkx as nx

from kgcore.exceptions import MissingDependencyError
from kgcore.visualize.labels import Box, Circle, LabelRequest, place_labels
from kgcore.visualize.scene import (
    ANSWER_RING,
    DrawingError,
    Scene,
    SceneEdge,
    SceneNode,
    short_label,
)

IMAGE_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
MAX_EDGE_LABELS = 60
DEFAULT_FIGSIZE = (12.0, 8.0)
DEFAULT_DPI = 100
NODES_AT_DEFAULT_SIZE = 60
MAX_SCALE = 1.5
MARGIN = 0.08
NODE_LABEL_WIDTH = 14


def _figure_class() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as err:  # pragma: no cover - depends on the installation
        raise MissingDependencyError("matplotlib", "visualize") from err
    return Figure


def check_image_path(path: str | Path) -> Path:
    """``path`` as a :class:`~pathlib.Path` if its suffix names an image format we write.

    Example
    -------
    >>> check_image_path("chain.svg").name
    'chain.svg'
    >>> try:
    ...     check_image_path("chain.txt")
    ... except DrawingError as err:
    ...     print(err)
    cannot draw to 'chain.txt': use a .png, .svg, .pdf, .jpg or .jpeg file name
    """
    path = Path(path)
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        names = ", ".join(IMAGE_SUFFIXES[:-1]) + " or " + IMAGE_SUFFIXES[-1]
        raise DrawingError(f"cannot draw to {str(path)!r}: use a {names} file name")
    return path


def layout(scene: Scene, seed: int = 0) -> dict[Hashable, tuple[float, float]]:
    """Node positions: layers left to right (depth), then a seeded spring layout.

    The layered start keeps the reasoning's direction readable; the spring relaxation
    separates nodes. Both depend only on the scene's order and ``seed``, so pictures repeat.
    """
    graph = nx.Graph()
    graph.add_nodes_from(n.key for n in scene.nodes)
    graph.add_edges_from((e.source, e.target) for e in scene.edges)
    if not scene.nodes:
        return {}
    by_layer: dict[int, list[SceneNode]] = {}
    for node in scene.nodes:
        by_layer.setdefault(node.layer, []).append(node)
    layers = sorted(by_layer)
    start: dict[Hashable, tuple[float, float]] = {}
    for column, layer in enumerate(layers):
        members = by_layer[layer]
        for row, node in enumerate(members):
            y = 0.0 if len(members) == 1 else 2.0 * row / (len(members) - 1) - 1.0
            start[node.key] = (float(column), y)
    if len(scene.nodes) == 1:
        return {scene.nodes[0].key: (0.0, 0.0)}
    k = 2.4 / max(len(scene.nodes), 1) ** 0.5
    # One layer (a G-Retriever subgraph) has no direction to keep: start from seeded noise.
    initial = start if len(layers) > 1 else None
    positions = nx.spring_layout(graph, pos=initial, k=k, iterations=60, seed=seed)
    return {key: (float(x), float(y)) for key, (x, y) in positions.items()}


def _edge_style(edge: SceneEdge) -> tuple[str, float, float, bool]:
    return (edge.colour, edge.alpha, edge.width, edge.dashed)


def auto_figsize(scene: Scene) -> tuple[float, float]:
    """The canvas of a picture: 12 by 8 inches up to 60 nodes, growing with the square root of
    the node count above that, to 1.5 times as wide and high (labels need room).

    Example
    -------
    >>> auto_figsize(Scene(title="q"))
    (12.0, 8.0)
    """
    scale = min(MAX_SCALE, max(1.0, (len(scene.nodes) / NODES_AT_DEFAULT_SIZE) ** 0.5))
    return (DEFAULT_FIGSIZE[0] * scale, DEFAULT_FIGSIZE[1] * scale)


def _text_size(text: Any, renderer: Any) -> tuple[float, float]:
    extent = text.get_window_extent(renderer)
    return (float(extent.width), float(extent.height))


def _edge_label_texts(scene: Scene) -> list[tuple[tuple[Hashable, Hashable], str, bool]]:
    """``(pair, text, faded)`` per labelled node pair; too many labels: the strong ones only."""
    labelled = [e for e in scene.edges if e.label]
    if len(labelled) > MAX_EDGE_LABELS:  # too many to read: name the strong edges only
        labelled = [e for e in labelled if e.alpha >= 1.0]
    if len(labelled) > MAX_EDGE_LABELS:
        return []
    texts: dict[tuple[Hashable, Hashable], list[str]] = {}
    faded: dict[tuple[Hashable, Hashable], bool] = {}
    for edge in labelled:
        pair = (edge.source, edge.target)
        if (edge.target, edge.source) in texts:
            pair = (edge.target, edge.source)
        if edge.label not in texts.setdefault(pair, []):
            texts[pair].append(edge.label)
        faded[pair] = faded.get(pair, True) and edge.alpha < 1.0
    return [
        (pair, short_label(" / ".join(names), 30), faded[pair]) for pair, names in texts.items()
    ]


def _node_priority(node: SceneNode) -> int:
    if node.ring or node.shape == "s":
        return 0  # the answer and the topic entities
    return 1 if node.alpha >= 1.0 else 3


def draw_scene(
    scene: Scene,
    *,
    figsize: tuple[float, float] | None = None,
    dpi: int = DEFAULT_DPI,
    seed: int = 0,
) -> Any:
    """The :class:`matplotlib.figure.Figure` of ``scene``, ready to save (see :func:`render`).

    Every node's name and edge's relation is placed where it overlaps no other label
    (:mod:`kgcore.visualize.labels`); the few that find no such place are left out, and the
    note under the picture says how many.
    """
    figsize = auto_figsize(scene) if figsize is None else figsize
    if figsize[0] <= 0 or figsize[1] <= 0 or dpi <= 0:
        raise DrawingError(f"figsize and dpi must be positive, got {figsize} and {dpi}")
    figure_class = _figure_class()
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    positions = layout(scene, seed=seed)
    fig = figure_class(figsize=figsize, dpi=dpi, facecolor="white")
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.01, 0.04, 0.98, 0.84))
    ax.set_axis_off()
    fig.suptitle(textwrap.fill(scene.title, 100), fontsize=12, y=0.985)
    graph = nx.Graph()
    graph.add_nodes_from(positions)

    # Edges, grouped by style so each group is one collection (fast for big pictures).
    groups: dict[tuple[str, float, float, bool], list[tuple[Hashable, Hashable]]] = {}
    for edge in scene.edges:
        groups.setdefault(_edge_style(edge), []).append((edge.source, edge.target))
    for (colour, alpha, width, dashed), pairs in groups.items():
        nx.draw_networkx_edges(
            graph,
            positions,
            edgelist=pairs,
            ax=ax,
            edge_color=colour,
            alpha=alpha,
            width=width,
            style="dashed" if dashed else "solid",
            arrows=False,
        )

    # Nodes, grouped by shape and fading (one collection each).
    node_groups: dict[tuple[str, float], list[SceneNode]] = {}
    for node in scene.nodes:
        node_groups.setdefault((node.shape, node.alpha), []).append(node)
    for (shape, alpha), members in node_groups.items():
        nx.draw_networkx_nodes(
            graph,
            positions,
            nodelist=[n.key for n in members],
            ax=ax,
            node_color=[n.colour for n in members],
            node_size=[n.size for n in members],
            node_shape=shape,
            alpha=alpha,
            edgecolors=[n.ring or "white" for n in members],
            linewidths=[3.0 if n.ring else 0.8 for n in members],
        )
    badges = {n.key: n.badge for n in scene.nodes if n.badge}
    if badges:
        nx.draw_networkx_labels(
            graph, positions, labels=badges, ax=ax, font_size=7, font_color="white"
        )
    _legend(fig, scene)
    _set_limits(ax, positions)
    hidden = _place_labels(fig, ax, scene, positions, dpi)
    note = scene.note
    if hidden:
        note += ("; " if note else "") + f"{hidden} label(s) left out where they would overlap"
    if note:
        fig.text(0.01, 0.01, textwrap.fill(note, int(figsize[0] * 14)), fontsize=8, color="#555555")
    return fig


def _set_limits(ax: Any, positions: dict[Hashable, tuple[float, float]]) -> None:
    """Axis limits around the nodes with a margin (labels sit beside the outer nodes)."""
    xs = [x for x, _ in positions.values()] or [0.0]
    ys = [y for _, y in positions.values()] or [0.0]
    for setter, low, high in ((ax.set_xlim, min(xs), max(xs)), (ax.set_ylim, min(ys), max(ys))):
        span = high - low if high > low else 1.0
        setter(low - MARGIN * span, high + MARGIN * span)


def _place_labels(
    fig: Any, ax: Any, scene: Scene, positions: dict[Hashable, tuple[float, float]], dpi: int
) -> int:
    """Place the node and edge labels (see :mod:`kgcore.visualize.labels`); the number left
    out."""
    renderer = fig.canvas.get_renderer()
    to_pixels = ax.transData.transform
    pixels = {key: tuple(to_pixels(xy)) for key, xy in positions.items()}
    circles = []
    for node in scene.nodes:
        x, y = pixels[node.key]
        radius = (node.size**0.5 / 2 + (3.0 if node.ring else 0.8)) * dpi / 72
        circles.append(Circle(float(x), float(y), radius))
    obstacles = [Box(*t.get_window_extent(renderer).extents) for t in ax.texts]
    legend = fig.legends[0] if fig.legends else None
    if legend is not None:
        obstacles.append(Box(*legend.get_window_extent(renderer).extents))
    texts, requests = [], []
    for index, node in enumerate(scene.nodes):
        if not node.name:  # a node drawn without a name (G-Retriever's many virtual nodes)
            continue
        text = ax.text(
            0,
            0,
            textwrap.fill(short_label(node.name), NODE_LABEL_WIDTH, break_long_words=False),
            fontsize=7,
            ha="center",
            va="center",
            multialignment="center",
            alpha=max(node.alpha, 0.5),
            fontweight="bold" if node.ring else "normal",
        )
        texts.append(text)
        size = _text_size(text, renderer)
        requests.append(LabelRequest(node.key, size, _node_priority(node), node=index))
    for pair, label, faded in _edge_label_texts(scene):
        text = ax.text(
            0,
            0,
            label,
            fontsize=6,
            ha="center",
            va="center",
            alpha=0.45 if faded else 0.9,
            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.6},
        )
        texts.append(text)
        ends = (pixels[pair[0]], pixels[pair[1]])
        requests.append(
            LabelRequest(pair, _text_size(text, renderer), 4 if faded else 2, edge=ends)
        )
    area = Box(*ax.get_window_extent(renderer).extents)
    to_data = ax.transData.inverted().transform
    hidden = 0
    for text, box in zip(texts, place_labels(requests, circles, area, obstacles), strict=True):
        if box is None:
            text.remove()
            hidden += 1
        else:
            text.set_position(tuple(to_data(box.centre)))
    return hidden


def render(
    scene: Scene,
    path: str | Path,
    *,
    figsize: tuple[float, float] | None = None,
    dpi: int = DEFAULT_DPI,
    seed: int = 0,
) -> Path:
    """Draw ``scene`` to ``path`` (PNG, SVG, PDF or JPEG by its suffix) and return the path.

    The image is ``figsize[0] * dpi`` by ``figsize[1] * dpi`` pixels (``figsize`` by default
    :func:`auto_figsize`); missing parent folders are created. No two labels overlap
    (:func:`draw_scene`).
    """
    path = check_image_path(path)
    fig = draw_scene(scene, figsize=figsize, dpi=dpi, seed=seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, facecolor="white")
    return path


def _legend(fig: Any, scene: Scene) -> None:
    """The legend in one row above the drawing, under the title, where it covers no node."""
    from matplotlib.lines import Line2D

    handles = []
    seen: set[str] = set()
    for node in scene.nodes:
        if not node.legend or node.legend in seen:
            continue
        seen.add(node.legend)
        handles.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker=node.shape,
                markersize=9,
                markerfacecolor=node.colour,
                markeredgecolor="white",
                alpha=node.alpha,
                label=node.legend,
            )
        )
    if any(n.ring for n in scene.nodes):
        handles.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker="o",
                markersize=10,
                markerfacecolor="white",
                markeredgecolor=ANSWER_RING,
                markeredgewidth=3,
                label="answer",
            )
        )
    if handles:
        fig.legend(
            handles=handles,
            loc="center",
            bbox_to_anchor=(0.5, 0.915),
            ncol=len(handles),
            fontsize=8,
            frameon=False,
        )
