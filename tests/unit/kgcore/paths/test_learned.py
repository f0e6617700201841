"""The learned path scorer at question time: loading, ranking, and what FastToG does with it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors.numpy import save_file

from kgcore.builder import build_method
from kgcore.exceptions import ConfigurationError
from kgcore.graph import InMemoryGraphStore
from kgcore.paths.learned import (
    CONFIG_FILE,
    WEIGHTS_FILE,
    LearnedPathScorer,
    load_path_scorer,
    path_relations,
    resolve_path_scorer,
    trained_scorer_dir,
)
from kgcore.paths.walk import Hop, RelationPath

WORDS = ("born", "birth", "child", "children")


def embed(texts):
    """Bag of four words: 'born' and 'birth' share nothing until a projection joins them."""
    return np.array([[float(w in t.split()) for w in WORDS] for t in texts])


def paths_of(*relations):
    return [RelationPath("Ann", (Hop(r),), {"X": 1}, {"X"}, ()) for r in relations]


def save_scorer(folder, question, path, dimension=4):
    folder.mkdir(parents=True, exist_ok=True)
    save_file({"question": question, "path": path}, str(folder / WEIGHTS_FILE))
    (folder / CONFIG_FILE).write_text(json.dumps({"dimension": dimension}))


def test_a_projection_joins_words_the_plain_cosine_cannot():
    paths = paths_of("people.person.children", "people.person.place_of_birth")
    plain = LearnedPathScorer(np.eye(4), np.eye(4), embed)
    assert plain("where was Ann born", ["Ann"], paths) == [0.0, 0.0]
    joined = np.eye(4)
    joined[1] = [1.0, 0, 0, 0]  # the path's 'birth' reads as the question's 'born'
    joined[3] = [0, 0, 1.0, 0]  # 'children' as 'child'
    learned = LearnedPathScorer(np.eye(4), joined, embed)
    born = learned("where was Ann born", ["Ann"], paths)
    child = learned("who is the child of Ann", ["Ann"], paths)
    assert born[1] > born[0] and child[0] > child[1]


def test_compound_hops_read_leg_by_leg_in_walking_order():
    hops = [Hop("film.actor.film / ^film.performance.character"), Hop("x.y / z.w", False)]
    assert path_relations(hops) == [
        "film.actor.film",
        "film.performance.character",
        "z.w",
        "x.y",
    ]


def test_load_round_trip_and_clear_errors(tmp_path):
    save_scorer(tmp_path / "s", np.eye(4), np.eye(4))
    scorer = load_path_scorer(tmp_path / "s", embed)
    assert scorer.name == "s" and scorer.question.shape == (4, 4)
    with pytest.raises(ConfigurationError, match="no path scorer in .*kgqa paths train"):
        load_path_scorer(tmp_path / "missing", embed)
    save_scorer(tmp_path / "bad", np.eye(4), np.eye(3))
    with pytest.raises(ConfigurationError, match="projections do not match"):
        load_path_scorer(tmp_path / "bad", embed)
    save_scorer(tmp_path / "other", np.eye(4), np.eye(4), dimension=384)
    with pytest.raises(ConfigurationError, match="config and weights disagree"):
        load_path_scorer(tmp_path / "other", embed)


def test_an_embedder_of_another_size_is_named():
    scorer = LearnedPathScorer(np.eye(3), np.eye(3), embed)
    with pytest.raises(ConfigurationError, match="trained on 3-dimensional embeddings"):
        scorer("where was Ann born", ["Ann"], paths_of("born"))


def test_resolve_takes_names_folders_and_callables(tmp_path):
    assert resolve_path_scorer(None, embed) is None
    assert resolve_path_scorer("similarity", embed) is None
    mine = lambda question, topic, paths: [0.0] * len(paths)  # noqa: E731
    assert resolve_path_scorer(mine, embed) is mine
    with pytest.raises(ConfigurationError, match="no path scorer"):
        resolve_path_scorer(str(tmp_path), embed)


def test_the_shipped_scorer_loads():
    scorer = load_path_scorer("trained", embed)
    assert scorer.question.shape == (384, 384) and scorer.name == "path-scorer-webqsp"


def test_a_wheel_install_finds_the_scorer_it_ships(tmp_path, monkeypatch):
    from kglocal import locations

    monkeypatch.setattr(locations, "project_models_dir", lambda: None)  # no checkout
    monkeypatch.setenv("KGQA_MODELS_DIR", str(tmp_path / "user"))
    monkeypatch.setattr(locations, "packaged_models_dir", lambda: tmp_path / "wheel")
    with pytest.raises(ConfigurationError, match="path-scorer-webqsp"):
        trained_scorer_dir()
    save_scorer(tmp_path / "wheel" / "path-scorer-webqsp", np.eye(4), np.eye(4))
    assert trained_scorer_dir() == tmp_path / "wheel" / "path-scorer-webqsp"
    save_scorer(tmp_path / "user" / "path-scorer-webqsp", np.eye(4), np.eye(4))
    assert trained_scorer_dir() == tmp_path / "user" / "path-scorer-webqsp"  # the user's first


def test_fasttog_ranks_its_paths_with_the_scorer_it_is_given(tmp_path):
    store = InMemoryGraphStore.from_triples(
        [
            ("Ann", "people.person.place_of_birth", "Aurich"),
            ("Ann", "people.person.children", "Bob"),
        ]
    )
    joined = np.eye(4)
    joined[1] = [1.0, 0, 0, 0]
    save_scorer(tmp_path / "s", np.eye(4), joined)

    class Embedder:
        model_id = "four-words"

        def embed(self, texts, progress=False):
            return embed(texts)

    method = build_method("fasttog", store, embeddings=Embedder(), scorer=str(tmp_path / "s"))
    planner = method.paths
    assert planner.scorer() is planner.learned
    ranked = planner.scorer()(
        "where was [Ann] born",
        ["Ann"],
        paths_of("people.person.children", "people.person.place_of_birth"),
    )
    assert ranked[1] > ranked[0]
    with pytest.raises(ConfigurationError, match="no path scorer"):
        build_method("fasttog", store, scorer=str(tmp_path / "none"))


def test_a_trained_scorers_best_path_is_read_alone_first():
    from kgcore.llm import ScriptedLLM
    from kgcore.methods.fasttog import FastToG

    store = InMemoryGraphStore.from_triples(
        [
            ("Ann", "people.person.place_of_birth", "Aurich"),
            ("Ann", "people.person.children", "Bob"),
            ("Bob", "people.person.place_of_birth", "Emden"),
        ]
    )

    def births_first(question, topic, paths):
        return [float(p.hops[-1].relation.endswith("birth")) - len(p.hops) for p in paths]

    llm = ScriptedLLM(["Ann was born in Aurich. {Aurich}"])
    result = FastToG(store, scorer=births_first).run("where was [Ann] born", llm)
    assert result.answer == "Aurich" and result.llm_calls == 1
    shown = llm.requests[0].messages[-1].content
    assert "Aurich" in shown and "Bob" not in shown  # the best path alone
    # A reply outside the path lets FastToG go on with every path's facts.
    llm = ScriptedLLM(["{Unknown}", "{1}", "{Bob}"] + ["{Unknown}"] * 6)
    result = FastToG(store, scorer=births_first).run("who is a child of [Ann]", llm)
    assert llm.requests[0].purpose == "reason" and result.llm_calls >= 2


def test_a_question_about_two_entities_reads_every_path_together():
    from kgcore.llm import ScriptedLLM
    from kgcore.methods.fasttog import FastToG

    store = InMemoryGraphStore.from_triples(
        [
            ("Ann", "people.person.place_of_birth", "Aurich"),
            ("Cid", "people.person.place_of_birth", "Aurich"),
            ("Ann", "people.person.children", "Bob"),
        ]
    )

    def births_first(question, topic, paths):
        return [float(p.hops[-1].relation.endswith("birth")) for p in paths]

    llm = ScriptedLLM(lambda request: "{Aurich}" if request.purpose == "reason" else "{1}")
    result = FastToG(store, scorer=births_first).run("where were [Ann] and [Cid] born", llm)
    depths = [s.get("depth") for s in result.extra["steps"] if s.get("purpose") == "reason"]
    assert 0 not in depths  # no path was read alone first
