"""What a drawn picture shows, measured with matplotlib's renderer (for the picture tests)."""

from __future__ import annotations

from typing import Any

from matplotlib.transforms import Bbox


def label_boxes(fig: Any) -> list[tuple[str, Bbox]]:
    """``(text, box in display pixels)`` of every visible label drawn in the figure's axes,
    including the box drawn behind a text (edge labels), and of each legend."""
    renderer = fig.canvas.get_renderer()
    boxes = []
    for ax in fig.axes:
        for text in ax.texts:
            if not text.get_visible() or not text.get_text():
                continue
            box = text.get_window_extent(renderer)
            patch = text.get_bbox_patch()
            if patch is not None:
                text.update_bbox_position_size(renderer)
                box = Bbox.union([box, patch.get_window_extent(renderer)])
            boxes.append((text.get_text(), box))
    for legend in fig.legends:
        boxes.append(("<legend>", legend.get_window_extent(renderer)))
    return boxes


def overlapping_labels(fig: Any) -> list[tuple[str, str]]:
    """Pairs of labels (see :func:`label_boxes`) whose boxes overlap by more than a pixel."""
    boxes = label_boxes(fig)
    pairs = []
    for i, (name, box) in enumerate(boxes):
        for other, other_box in boxes[i + 1 :]:
            inter = Bbox.intersection(box, other_box)
            if inter is not None and inter.width > 1 and inter.height > 1:
                pairs.append((name, other))
    return pairs
