"""The report's two plots (matplotlib, loaded when a plot is drawn): hit@1 against average LLM
calls per run, and average depth and hit@1 against FastToG's maximum community size (the FastToG
paper's Figures 3 and 4). :func:`~kgeval.report.write_report` draws them beside its table.

Example
-------
>>> run_styles(3)
[('o', 'C0'), ('s', 'C1'), ('D', 'C2')]
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _overall(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One row per run: its ``all`` row when it spans datasets, else its only row."""
    overall = {r["run"]: r for r in rows if r["dataset"] == "all"}
    for r in rows:
        overall.setdefault(r["run"], r)
    return overall


#: Marker shapes of the accuracy plot; with the ten default colours, 100 runs get distinct pairs.
MARKERS = "osD^v<>ph*"
#: Size (points squared) of a run's marker, and the sideways step (points) between runs that
#: would sit on one another.
MARKER_AREA = 45.0
SPREAD_STEP = 9.0


def run_styles(count: int) -> list[tuple[str, str]]:
    """``(marker, colour)`` of each of ``count`` runs: every pair differs (up to 100 runs).

    Example
    -------
    >>> run_styles(3)
    [('o', 'C0'), ('s', 'C1'), ('D', 'C2')]
    >>> len(set(run_styles(100)))
    100
    """
    return [
        (MARKERS[(index + index // 10) % len(MARKERS)], f"C{index % 10}") for index in range(count)
    ]


def spread_offsets(points: Sequence[tuple[float, float]], distance: float) -> list[float]:
    """Sideways offsets (in the points' unit) that part points closer than ``distance``.

    Points are grouped when each is within ``distance`` of another of the group; a group of
    ``k`` is spread in a row ``distance`` apart around its place, in the order given.

    Example
    -------
    >>> spread_offsets([(0, 0), (0, 0), (50, 0), (0, 1)], distance=9)
    [-9.0, 0.0, 0.0, 9.0]
    """
    group = list(range(len(points)))

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for i, (x, y) in enumerate(points):
        for j in range(i):
            if (x - points[j][0]) ** 2 + (y - points[j][1]) ** 2 < distance**2:
                group[root(i)] = root(j)
    members: dict[int, list[int]] = {}
    for i in range(len(points)):
        members.setdefault(root(i), []).append(i)
    offsets = [0.0] * len(points)
    for indices in members.values():
        for rank, i in enumerate(indices):
            offsets[i] = (rank - (len(indices) - 1) / 2) * distance
    return offsets


def accuracy_vs_calls_figure(rows: Sequence[dict[str, Any]]) -> Any:
    """The figure of :func:`plot_accuracy_vs_calls` (one scatter collection per run)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.transforms import ScaledTranslation

    overall = _overall(rows)
    fig, ax = plt.subplots(figsize=(8, 4))
    points = sorted(
        (row["llm_calls"], row["hit@1"], run)
        for run, row in overall.items()
        if row["hit@1"] is not None and row["llm_calls"] is not None
    )
    # A legend, not labels beside the points: runs often sit close together (FastToG at
    # several community sizes), where labels overlap. Colour and marker together stay unique.
    collections = []
    for (x, y, run), (marker, colour) in zip(points, run_styles(len(points)), strict=True):
        label = run.replace("max_community_size=", "M=")
        collections.append(
            ax.scatter(x, y, s=MARKER_AREA, marker=marker, color=colour, label=label, zorder=3)
        )
    if points:
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    ax.set_xlabel("average LLM calls per question")
    ax.set_ylabel("hit@1")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title("Accuracy against LLM calls")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    if points:  # runs at one place (IO and CoT: one call, hit@1 0) are spread sideways
        fig.canvas.draw()
        pixels = [tuple(ax.transData.transform((x, y))) for x, y, _ in points]
        step = SPREAD_STEP * fig.dpi / 72
        spread = spread_offsets(pixels, step)
        if any(spread):
            ax.annotate(
                "runs at the same place are spread sideways",
                (0.99, 0.01),
                xycoords="axes fraction",
                ha="right",
                va="bottom",
                fontsize=7,
                color="#555555",
            )
        for collection, offset in zip(collections, spread, strict=True):
            shift = ScaledTranslation(offset / fig.dpi, 0, fig.dpi_scale_trans)
            collection.set_offset_transform(ax.transData + shift)
    return fig


def plot_accuracy_vs_calls(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    """Scatter of hit@1 against average LLM calls, one point per run (``all`` rows preferred).

    Every run has its own (marker, colour) pair and a legend entry; runs that would sit on one
    another are spread sideways, so none hides another.
    """
    import matplotlib.pyplot as plt

    fig = accuracy_vs_calls_figure(rows)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_community_size(rows: Sequence[dict[str, Any]], path: Path) -> Path | None:
    """Average depth and hit@1 against FastToG's maximum community size (two or more sizes)."""
    points: dict[int, dict[str, Any]] = {}
    for row in _overall(rows).values():
        size = row.get("max_community_size")
        if size:
            points.setdefault(int(size), row)
    if len(points) < 2:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(points)
    fig, left = plt.subplots(figsize=(6, 4))
    left.plot(sizes, [points[s]["depth"] for s in sizes], "o-", color="tab:blue")
    left.set_xlabel("maximum community size M")
    left.set_ylabel("average depth", color="tab:blue")
    left.set_ylim(0, max(points[s]["depth"] or 0 for s in sizes) + 0.5)
    right = left.twinx()
    right.plot(sizes, [points[s]["hit@1"] for s in sizes], "s--", color="tab:red")
    right.set_ylabel("hit@1", color="tab:red")
    right.set_ylim(-0.05, 1.05)
    left.set_xticks(sizes)
    left.set_title("FastToG: depth and accuracy against community size")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
