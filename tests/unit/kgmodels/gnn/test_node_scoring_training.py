"""Reading PathQuestion files into the node scorer's training examples (no model download)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError
from kgmodels.gnn.node_scoring_training import held_out_split, prepare_examples, read_questions
from tests.support.fake_embedder import FakeEmbedder

TRIPLES = [
    ("ann", "children", "bob"),
    ("bob", "place_of_birth", "oslo"),
    ("cal", "children", "dan"),
    ("dan", "place_of_birth", "rome"),
]
ROWS = [
    {"id": "q1", "question": "what is ann 's children 's place of birth ?", "answers": ["oslo"],
     "topic_entities": ["ann"]},
    {"id": "q2", "question": "what is cal 's children 's place of birth ?", "answers": ["rome"],
     "topic_entities": ["cal"]},
    {"id": "q3", "question": "what is cal 's children 's place of birth ?", "answers": ["nowhere"],
     "topic_entities": ["cal"]},
]  # fmt: skip


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    (tmp_path / "kb_PQ-2H.txt").write_text("\n".join("|".join(t) for t in TRIPLES) + "\n")
    (tmp_path / "train_PQ-2H.jsonl").write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return tmp_path


def test_questions_whose_subgraph_holds_no_answer_are_left_out_unless_kept(
    data_dir: Path,
) -> None:
    options = {"sets": ("PQ-2H",), "embedder": FakeEmbedder(dim=8), "progress": False}
    retrieval = {"hops": 2, "k_nodes": 10, "k_edges": 10}
    examples, counts = prepare_examples(data_dir, retrieval=retrieval, **options)
    assert counts["PQ-2H"] == {"questions": 3, "hold": 2, "recall": 2 / 3}
    assert len(examples) == 2 and all(float(e.y.sum()) == 1 for e in examples)
    assert examples[0].x.dtype.is_floating_point and examples[0].x.element_size() == 2  # half
    kept, _ = prepare_examples(data_dir, retrieval=retrieval, keep_all=True, first=1, **options)
    assert len(kept) == 2 and float(kept[1].y.sum()) == 0  # rows 2-3, the last without answer


def test_missing_files_and_the_held_out_split(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="training questions not found"):
        read_questions(tmp_path / "train_PQ-3H.jsonl")
    (tmp_path / "train_PQ-3H.jsonl").write_text('{"id": "q1", "question": "who?"}\n')
    with pytest.raises(ConfigurationError, match="train_PQ-3H.jsonl:1: 'answers'"):
        read_questions(tmp_path / "train_PQ-3H.jsonl")  # a row without answers, named
    train, held = held_out_split(list(range(10)), 0.2, seed=0)
    assert len(held) == 2 and sorted(train + held) == list(range(10))
    assert held_out_split(list(range(10)), 0.2, seed=0) == (train, held)
