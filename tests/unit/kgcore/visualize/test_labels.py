"""Label placement: no two labels of a picture overlap, the important ones are placed first."""

from __future__ import annotations

import numpy as np
import pytest

from kgcore.visualize import fasttog_scene
from kgcore.visualize.labels import Box, Circle, LabelRequest, place_labels
from kgcore.visualize.render import auto_figsize, draw_scene
from kgcore.visualize.scene import Scene, answer_matches
from tests.support.pictures import label_boxes, overlapping_labels
from tests.unit.kgcore.visualize.test_visualize import _big_fasttog_result, _fasttog_result


def test_crowded_labels_never_overlap_and_stay_in_the_area() -> None:
    rng = np.random.default_rng(0)
    area = Box(0, 0, 400, 300)
    nodes = [Circle(float(x), float(y), 6.0) for x, y in rng.uniform(20, 280, size=(60, 2))]
    requests = [
        LabelRequest(i, (float(rng.uniform(20, 70)), 10.0), priority=i % 3, node=i)
        for i in range(len(nodes))
    ]
    placed = place_labels(requests, nodes, area, obstacles=[Box(0, 280, 400, 300)])
    boxes = [b for b in placed if b is not None]
    assert 30 <= len(boxes) < len(requests)  # crowded: most placed, some left out
    for i, box in enumerate(boxes):
        assert box.inside(area) and not box.overlaps(Box(0, 280, 400, 300))
        assert not any(box.overlaps(other) for other in boxes[i + 1 :])


def test_the_more_important_label_gets_the_only_free_place() -> None:
    area = Box(0, 0, 40, 40)
    nodes = [Circle(20, 20, 2), Circle(20, 20, 2)]
    requests = [
        LabelRequest("faded", (36, 30), priority=3, node=0),
        LabelRequest("answer", (36, 30), priority=0, node=1),
    ]
    assert place_labels(requests, nodes, area) == [None, place_labels(requests[1:], nodes, area)[0]]


def test_an_edge_label_sits_on_its_edge_when_free() -> None:
    request = LabelRequest("r", (10, 4), priority=2, edge=((0.0, 0.0), (100.0, 0.0)))
    (box,) = place_labels([request], [], Box(-10, -10, 110, 10))
    assert box is not None and box.centre == (50.0, 0.0)


def test_a_dense_picture_draws_with_no_overlapping_labels() -> None:
    scene = fasttog_scene(_big_fasttog_result(), max_nodes=120)
    fig = draw_scene(scene)
    assert overlapping_labels(fig) == []
    drawn = {text.replace("\n", " ") for text, _ in label_boxes(fig)}
    assert {"Cleopatra", "J. L. Mankiewicz", "All About Eve", "Bette Davis"} <= drawn
    assert "label(s) left out where they would overlap" in fig.texts[-1].get_text()
    assert fig.canvas.get_width_height() == tuple(round(s * 100) for s in auto_figsize(scene))


def test_a_small_picture_names_every_node_and_keeps_the_default_canvas() -> None:
    scene = fasttog_scene(_fasttog_result())
    fig = draw_scene(scene)
    assert overlapping_labels(fig) == []
    drawn = {text.replace("\n", " ") for text, _ in label_boxes(fig)}
    assert {n.name for n in scene.nodes} <= drawn
    assert fig.canvas.get_width_height() == (1200, 800)


@pytest.mark.parametrize(("nodes", "scale"), [(10, 1.0), (60, 1.0), (135, 1.5), (1000, 1.5)])
def test_the_canvas_grows_with_the_node_count_up_to_a_limit(nodes: int, scale: float) -> None:
    scene = Scene(title="q")
    for i in range(nodes):
        scene.add_node(i)
    assert auto_figsize(scene) == pytest.approx((12 * scale, 8 * scale))


def test_an_answer_title_with_and_in_it_matches_whole() -> None:
    names = ["Guys and Dolls", "All About Eve", "Guys", "Dolls"]
    assert answer_matches("All About Eve; Guys and Dolls", names) == names
    assert answer_matches("Guys and Dolls", ["Guys and Dolls"]) == ["Guys and Dolls"]
