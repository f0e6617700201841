"""``kgqa paths train``: a scorer trained from questions with answers on the user's graph, and
bad input refused at the door in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import kgcore.embeddings
from kgcore.paths.learned import load_path_scorer
from kgqa.cli import main

WORDS = ("born", "birth", "kid", "children")


class ToyEmbedder:
    """Bag of four words, so that training is quick and its effect visible."""

    def embed(self, texts, progress=False):
        return np.array([[float(w in t.lower().split()) for w in WORDS] for t in texts]) + 0.01


def test_a_scorer_is_trained_from_questions_on_the_users_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(kgcore.embeddings, "default_embedder", ToyEmbedder)
    people = ["Ann", "Bea", "Cid", "Dan"]
    (tmp_path / "kb.txt").write_text(
        "".join(
            f"{p}|people.person.place_of_birth|Town {i}\n{p}|people.person.children|Kid {i}\n"
            for i, p in enumerate(people)
        )
    )
    rows = [
        {"question": f"where was {p} born", "topic_entities": [p], "answers": [f"Town {i}"]}
        for i, p in enumerate(people)
    ] + [
        {"question": f"who is the kid of {p}", "topic_entities": [p], "answers": [f"Kid {i}"]}
        for i, p in enumerate(people)
    ]
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "scorer"
    args = ["paths", "train", "--data", str(tmp_path / "qa.jsonl"), "--kg",
            str(tmp_path / "kb.txt"), "--out", str(out), "--epochs", "50"]  # fmt: skip
    assert main(args) == 0
    assert f"--set scorer={out}" in capsys.readouterr().out
    scorer = load_path_scorer(out, ToyEmbedder().embed)
    assert scorer.question.shape == (len(WORDS), len(WORDS))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "--data .*: no such file"),
        ('{"question": "q"}\n', "0 question\\(s\\) with a relation path"),
        ("not json\n", "not a path record"),
    ],
)
def test_bad_training_data_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    data = tmp_path / "paths.jsonl"
    if content is not None:
        data.write_text(content)
    code = main(["paths", "train", "--data", str(data), "--out", str(tmp_path / "s")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    import re

    assert re.search(message, err), err
    assert not (tmp_path / "s").exists()  # nothing half-written


def test_a_missing_scorer_is_refused_before_the_graph_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import kgqa.cli

    (tmp_path / "kb.txt").write_text("Ann|child|Bob\n")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the graph was loaded before the scorer was checked")

    monkeypatch.setattr(kgqa.cli, "open_graph", refuse)
    code = main(["ask", "who is [Ann]'s child", "--kg", str(tmp_path / "kb.txt"),
                 "--set", f"scorer={tmp_path / 'none'}", "--llm", "none"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "no path scorer in" in err and len(err.strip().splitlines()) == 1
