"""Training a path scorer end to end on a small graph: paths found by search, trained, saved,
loaded, and ranking a question it was not trained on."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.graph import InMemoryGraphStore
from kgcore.paths import PathSettings
from kgcore.paths.learned import LearnedPathScorer, load_path_scorer
from kgcore.paths.reading import read_paths
from kgcore.paths.walk import relation_paths
from kgmodels.path_scorer import (
    PathQuestion,
    paths_from_answers,
    read_path_questions,
    train_path_scorer,
)

WORDS = ("born", "birth", "kid", "children", "married", "spouse")


def embed(texts):
    """Bag of words: a question's 'born' and a relation's 'birth' share nothing."""
    rows = np.array([[float(w in t.lower().split()) for w in WORDS] for t in texts])
    return rows + 0.01  # no zero rows


PEOPLE = ["Ann", "Bea", "Cid", "Dan", "Eve", "Fay"]


def family_graph():
    triples = []
    for i, person in enumerate(PEOPLE):
        triples += [
            (person, "people.person.place_of_birth", f"Town {i}"),
            (person, "people.person.children", f"Kid {i}"),
            (person, "people.person.spouse", f"Partner {i}"),
        ]
    return InMemoryGraphStore.from_triples(triples)


def test_trained_on_found_paths_it_ranks_a_new_question_right(tmp_path):
    store = family_graph()
    examples = []
    for i, person in enumerate(PEOPLE[:5]):
        examples += [
            (f"where was {person} born", [person], [f"Town {i}"]),
            (f"who is the kid of {person}", [person], [f"Kid {i}"]),
            (f"whom was {person} married to", [person], [f"Partner {i}"]),
        ]
    questions = paths_from_answers(store, examples, max_hops=1)
    assert len(questions) == 15
    assert questions[0].paths == (("people.person.place_of_birth",),)
    report = train_path_scorer(questions, embed, tmp_path / "scorer", seed=0, epochs=200)
    assert report["paths"] == 3 and report["questions"] == 15
    saved = json.loads((tmp_path / "scorer" / "path_scorer.json").read_text())
    assert saved["dimension"] == len(WORDS) and saved["training"]["seed"] == 0
    scorer = load_path_scorer(tmp_path / "scorer", embed)
    untrained = LearnedPathScorer(np.eye(len(WORDS)), np.eye(len(WORDS)), embed)
    question = "where was Fay born"
    followed, _ = read_paths(store, question, ["Fay"], PathSettings(max_hops=1), scorer)
    assert followed[0].answers == ["Town 5"]
    paths = [p for p in relation_paths(store, "Fay", 1) if p.reached]
    born = [i for i, p in enumerate(paths) if p.hops[0].relation.endswith("birth")]
    after = scorer(question, ["Fay"], paths)
    assert max(range(len(paths)), key=after.__getitem__) == born[0]
    # The plain cosine cannot join 'born' and 'birth': every path looks the same to it.
    assert len(set(np.round(untrained(question, ["Fay"], paths), 6))) == 1


def test_training_repeats_with_its_seed(tmp_path):
    data = [
        PathQuestion("where was x born", (("people.person.place_of_birth",),)),
        PathQuestion("who is the kid of x", (("people.person.children",),)),
    ] * 5
    train_path_scorer(data, embed, tmp_path / "a", seed=3, epochs=30)
    train_path_scorer(data, embed, tmp_path / "b", seed=3, epochs=30)
    a = (tmp_path / "a" / "path_scorer.safetensors").read_bytes()
    assert a == (tmp_path / "b" / "path_scorer.safetensors").read_bytes()


def test_path_files_are_read_and_bad_lines_named(tmp_path):
    good = tmp_path / "paths.jsonl"
    good.write_text(
        '{"question": "where was x born", "paths": [["a.b"], ["c.d", "e.f"]]}\n'
        '{"question": "no paths", "paths": []}\n\n'
    )
    assert read_path_questions(good) == [
        PathQuestion("where was x born", (("a.b",), ("c.d", "e.f")))
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "paths": [["a"]]}\nnot json\n')
    with pytest.raises(ConfigurationError, match="bad.jsonl:2: not a path record"):
        read_path_questions(bad)
    with pytest.raises(ConfigurationError, match="at least two questions"):
        train_path_scorer([], embed, tmp_path / "c")
