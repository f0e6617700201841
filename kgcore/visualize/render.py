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


def render(
    scene: Scene,
    path: str | Path,
    *,
    figsize: tuple[float, float] = DEFAULT_FIGSIZE,
    dpi: int = DEFAULT_DPI,
    seed: int = 0,
) -> Path:
    """Draw ``scene`` to ``path`` (PNG, SVG, PDF or JPEG by its suffix) and return the path.

    The image is ``figsize[0] * dpi`` by ``figsize[1] * dpi`` pixels; missing parent folders
    are created.
    """
    path = check_image_path(path)
    if figsize[0] <= 0 or figsize[1] <= 0 or dpi <= 0:
        raise DrawingError(f"figsize and dpi must be positive, got {figsize} and {dpi}")
    figure_class = _figure_class()
    positions = layout(scene, seed=seed)
    fig = figure_class(figsize=figsize, dpi=dpi, facecolor="white")
    ax = fig.add_axes((0.01, 0.04, 0.98, 0.86))
    ax.set_axis_off()
    fig.suptitle(textwrap.fill(scene.title, 100), fontsize=12, y=0.98)
    if scene.note:
        fig.text(0.01, 0.01, scene.note, fontsize=8, color="#555555")
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
    labelled = [e for e in scene.edges if e.label]
    if len(labelled) > MAX_EDGE_LABELS:  # too many to read: name the strong edges only
        labelled = [e for e in labelled if e.alpha >= 1.0]
    if len(labelled) <= MAX_EDGE_LABELS:
        texts: dict[tuple[Hashable, Hashable], list[str]] = {}
        faded: dict[tuple[Hashable, Hashable], bool] = {}
        for edge in labelled:
            pair = (edge.source, edge.target)
            if (edge.target, edge.source) in texts:
                pair = (edge.target, edge.source)
            if edge.label not in texts.setdefault(pair, []):
                texts[pair].append(edge.label)
            faded[pair] = faded.get(pair, True) and edge.alpha < 1.0
        for fade in (True, False):  # one call per fading, not per label
            edge_labels = {
                pair: short_label(" / ".join(names), 30)
                for pair, names in texts.items()
                if faded[pair] == fade
            }
            if not edge_labels:
                continue
            nx.draw_networkx_edge_labels(
                graph,
                positions,
                edge_labels=edge_labels,
                ax=ax,
                font_size=6,
                alpha=0.45 if fade else 0.9,
                bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.6},
                rotate=False,
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
    ys = [y for _, y in positions.values()]
    offset = 0.035 * (max(ys) - min(ys) if len(ys) > 1 and max(ys) > min(ys) else 1.0)
    for node in scene.nodes:
        x, y = positions[node.key]
        ax.text(
            x,
            y - offset,
            short_label(node.name),
            fontsize=7,
            ha="center",
            va="top",
            alpha=max(node.alpha, 0.5),
            fontweight="bold" if node.ring else "normal",
        )
    _legend(ax, scene)
    ax.margins(0.08)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, facecolor="white")
    return path


def _legend(ax: Any, scene: Scene) -> None:
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
        ax.legend(handles=handles, loc="upper left", fontsize=8, framealpha=0.8)
