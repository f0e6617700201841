"""The picture ``kgqa ask --draw`` makes of docs/fasttog.md's first question has no overlapping
labels.

The run is that page's (MetaQA's graph, the default settings and the offline embedder that
``kgqa ask`` gives FastToG) with the reasoning reply scripted as the local Qwen2.5-Coder-1.5B
gave it (``All About Eve; Guys and Dolls`` at depth 1, issue 38). Both films are ends of the
offered path "directed by / directed by of" (MetaQA's graph holds the 1934 and the 1963
Cleopatra), so the answer is that path's films, the named ones first, and the picture holds
them all. Slow: it loads the 134k-triple graph and the embedding model.
"""

from __future__ import annotations

import pytest

from kgcore.builder import fasttog_embedder
from kgcore.llm import ScriptedLLM
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.visualize import fasttog_scene
from kgcore.visualize.render import draw_scene
from kgcore.visualize.scene import short_label
from tests.support.paths import REPO
from tests.support.pictures import label_boxes, overlapping_labels

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

METAQA_KB = REPO.parent / "shared" / "data" / "metaqa" / "kb.txt"
QUESTION = "what films did the director of [Cleopatra] direct"


@pytest.mark.skipif(not METAQA_KB.is_file(), reason="MetaQA is not in ../shared/data")
def test_the_readme_question_draws_with_no_overlapping_labels() -> None:
    from kgcore.graph import InMemoryGraphStore

    assert QUESTION in (REPO / "docs" / "fasttog.md").read_text(encoding="utf-8")
    store = InMemoryGraphStore.from_file(METAQA_KB, progress=False)
    config = FastToGConfig()
    embedder = fasttog_embedder(config)
    if embedder is None:
        pytest.skip("the offline embedding model is not installed")
    llm = ScriptedLLM.by_purpose({"reason": ["Answer: {All About Eve; Guys and Dolls}"]})
    result = FastToG(store, config, embedder=embedder).run(QUESTION, llm)
    named = ["All About Eve", "Guys and Dolls"]
    answers = result.answer.split("; ")
    assert answers[:2] == named and len(answers) > 10 and result.llm_calls == 1

    scene = fasttog_scene(result)
    fig = draw_scene(scene)
    assert overlapping_labels(fig) == []
    drawn = {text.replace("\n", " ") for text, _ in label_boxes(fig)}
    # Nothing that matters was left out to make room: topic, chains and answers are named
    # (a name longer than the label limit is shortened, as every label is).
    chain_nodes = [n.name for n in scene.nodes if n.alpha >= 1.0]
    assert len(chain_nodes) > 30 and {short_label(n) for n in chain_nodes} <= drawn
    ringed = {n.name for n in scene.nodes if n.ring}
    assert set(named) <= ringed and ringed <= set(answers)
    width, height = fig.canvas.get_width_height()
    for text, box in label_boxes(fig):
        assert 0 <= box.x0 and box.x1 <= width and 0 <= box.y0 and box.y1 <= height, text
