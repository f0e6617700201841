"""The accuracy-against-calls plot shows every run: its own marker and colour, none hidden."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kgeval.report_plots import (
    MARKER_AREA,
    accuracy_vs_calls_figure,
    plot_accuracy_vs_calls,
    run_styles,
    spread_offsets,
)

# The six methods of compare_methods.ipynb, as they often come out on a handful of questions:
# IO, CoT and G-Retriever at one call and hit@1 0, ToG and CGPE at the same place too.
SIX = {
    "io": (1.0, 0.0),
    "cot": (1.0, 0.0),
    "gretriever": (1.0, 0.0),
    "tog": (4.0, 1.0),
    "cgpe": (4.0, 1.0),
    "fasttog": (1.5, 1.0),
}


def _rows() -> list[dict[str, object]]:
    return [
        {"run": run, "dataset": "metaqa-1hop", "llm_calls": calls, "hit@1": hit}
        for run, (calls, hit) in SIX.items()
    ]


def test_every_method_has_a_visible_marker_of_its_own() -> None:
    fig = accuracy_vs_calls_figure(_rows())
    fig.canvas.draw()
    (ax,) = fig.axes
    collections = ax.collections
    assert sorted(c.get_label() for c in collections) == sorted(SIX)
    styles = {
        (c.get_paths()[0].vertices.round(3).tobytes(), tuple(c.get_facecolor()[0]))
        for c in collections
    }
    assert len(styles) == 6  # distinct (marker, colour) pairs
    centres = np.array(
        [c.get_offset_transform().transform(c.get_offsets())[0] for c in collections]
    )
    diameter = np.sqrt(MARKER_AREA) * fig.dpi / 72
    for i in range(len(centres)):
        for j in range(i + 1, len(centres)):
            assert np.linalg.norm(centres[i] - centres[j]) >= diameter, (i, j)
    # Spread sideways only: each point keeps its hit@1 height.
    heights = {c.get_label(): y for c, (_, y) in zip(collections, centres, strict=True)}
    assert heights["io"] == heights["cot"] == heights["gretriever"] != heights["tog"]
    legend = ax.get_legend()
    assert sorted(t.get_text() for t in legend.get_texts()) == sorted(SIX)


def test_the_plot_file_is_written(tmp_path: Path) -> None:
    out = plot_accuracy_vs_calls(_rows(), tmp_path / "calls.png")
    assert out.is_file() and out.stat().st_size > 5_000


def test_styles_and_spread() -> None:
    assert len(set(run_styles(100))) == 100
    assert spread_offsets([(0.0, 0.0), (100.0, 0.0)], distance=9) == [0.0, 0.0]
    assert spread_offsets([(0.0, 0.0)] * 3, distance=9) == [-9.0, 0.0, 9.0]
