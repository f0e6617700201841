"""Answer scoring and the dataset loaders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError
from kgeval.datasets import (
    load_dataset,
    load_explagraphs,
    load_jsonl,
    load_metaqa,
)
from kgeval.metrics import (
    answer_f1,
    answer_recall,
    hit_at_1,
    is_loop_back,
    normalize_answer,
    scored_hit,
    topic_echo,
)
from tests.support.paths import SHARED_DATA

SHARED = SHARED_DATA


@pytest.mark.parametrize(
    ("prediction", "answers", "hit"),
    [
        ("{Joseph L. Mankiewicz}", ["Joseph L. Mankiewicz"], True),
        ("It is joseph l mankiewicz.", ["Joseph L. Mankiewicz"], True),
        ("The films are Cobra and Red Sonja", ["Red Sonja", "Cobra"], True),
        ("Upside Down", ["Up"], False),  # containment is on word boundaries
        ("1963", ["1962"], False),
        ("Amélie", ["Amelie"], True),
        ("", ["x"], False),
        ("Unknown", [""], False),
    ],
)
def test_hit_at_1(prediction: str, answers: list[str], hit: bool) -> None:
    assert hit_at_1(prediction, answers) is hit


@pytest.mark.parametrize(
    ("prediction", "answers", "f1"),
    [
        ("Shane", ["Shane"], 1.0),
        ("the Shane; GIANT", ["Giant", "Shane"], 1.0),
        ("Shane | Giant\nCobra", ["Shane"], 0.5),  # P 1/3, R 1
        ("Shane", ["Shane", "Giant", "Cobra", "Up"], 0.4),  # P 1, R 1/4
        ("Cobra; Shane", ["Shane", "Giant"], 0.5),
        ("It was Shane", ["Shane"], 0.0),  # set members are compared whole
        ("Unknown", ["Shane"], 0.0),
        ("", ["Shane"], 0.0),
        ("Shane", [], 0.0),
    ],
)
def test_answer_f1_over_the_answer_set(prediction: str, answers: list[str], f1: float) -> None:
    assert answer_f1(prediction, answers) == pytest.approx(f1)


def test_a_topic_entity_answer_counts_only_on_a_loop_back_question() -> None:
    # PQL-3H: "what is the recording of recording of Indiana 's recording ?" gold: Indiana
    assert is_loop_back(["Indiana"], ["Indiana"]) and not is_loop_back(["Ohio"], ["Indiana"])
    assert scored_hit("Indiana", ["Indiana"], ["Indiana"])  # a loop-back hit
    assert scored_hit("the indiana.", ["Indiana"], ["Indiana"])  # normalised
    assert not topic_echo("Indiana", ["Indiana"], ["Indiana"])
    # an echo: the gold is elsewhere, even when it is contained in the topic's name
    assert topic_echo("Indiana Pacers", ["Indiana"], ["Indiana Pacers"])
    assert hit_at_1("Indiana Pacers", ["Indiana"])
    assert not scored_hit("Indiana Pacers", ["Indiana"], ["Indiana Pacers"])
    assert not scored_hit("Indiana; Ohio", ["Ohio"], ["Indiana"])  # the first answer echoes
    assert scored_hit("Ohio; Indiana", ["Ohio"], ["Indiana"])  # the first answer is the gold
    # two topic entities, the gold is the second: naming the first is still an echo
    assert not scored_hit("Giant", ["Shane"], ["Giant", "Shane"])
    assert scored_hit("Shane", ["Shane"], ["Giant", "Shane"])
    assert scored_hit("Shane", ["Shane"], [])  # no topic entities: plain hit@1


def test_normalize_answer_drops_case_punctuation_and_articles() -> None:
    assert normalize_answer("  The  Godfather: Part II ") == "godfather part ii"


def test_answer_recall_is_share_of_answers_in_context() -> None:
    context = "Cobra starred Brigitte Nielsen. Red Sonja starred Brigitte Nielsen."
    assert answer_recall(context, ["Cobra", "Red Sonja", "Rocky IV", "Beverly Hills Cop II"]) == 0.5
    assert answer_recall("", ["Cobra"]) is None


def write_metaqa(root: Path) -> Path:
    folder = root / "metaqa"
    folder.mkdir()
    (folder / "dev_1hop.txt").write_text(
        "what films does [Brigitte Nielsen] appear in\tCobra|Red Sonja\tactor_to_movie\n"
        "who directed [Cobra]\tGeorge P. Cosmatos\tmovie_to_director\n"
    )
    (folder / "dev_2hop.txt").write_text("q2 [X]\ta\tt\n")
    (folder / "dev_3hop.txt").write_text("q3 [Y]\tb\tt\n")
    (folder / "kb.txt").write_text("Cobra|starred_actors|Brigitte Nielsen\n")
    return folder


def test_metaqa_loader_reads_topic_answers_and_limit(tmp_path: Path) -> None:
    folder = write_metaqa(tmp_path)
    data = load_metaqa("1hop", limit=1, data_dir=folder)
    assert data.name == "metaqa-1hop"
    assert len(data) == 1
    example = data.examples[0]
    assert example.answers == ("Cobra", "Red Sonja")
    assert example.topic_entities == ("Brigitte Nielsen",)
    assert example.meta == {"hop": "1hop", "type": "actor_to_movie"}
    assert data.graph_path == folder / "kb.txt"


def test_dataset_specs(tmp_path: Path) -> None:
    write_metaqa(tmp_path)
    assert len(load_dataset("metaqa:1hop", data_dir=tmp_path)) == 2
    assert len(load_dataset("metaqa:1hop:1", data_dir=tmp_path)) == 1
    everything = load_dataset("metaqa:all:1", data_dir=tmp_path)
    assert [e.question for e in everything.examples] == [
        "what films does [Brigitte Nielsen] appear in",
        "q2 [X]",
        "q3 [Y]",
    ]
    with pytest.raises(ConfigurationError, match="unknown MetaQA split"):
        load_dataset("metaqa:4hop", data_dir=tmp_path)
    with pytest.raises(ConfigurationError, match="unknown dataset spec"):
        load_dataset("freebase:test")
    with pytest.raises(ConfigurationError, match="needs a path"):
        load_dataset("jsonl:")


def test_jsonl_loader_reads_optional_fields(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    rows = [
        {"id": "a", "question": "who wrote [Dune]", "answers": ["Frank Herbert"]},
        {"question": "q", "answer": "x", "topic_entities": "T", "triples": [["T", "r", "x"]]},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    data = load_jsonl(path)
    first, second = data.examples
    assert first.id == "a" and first.topic_entities == ("Dune",) and first.triples is None
    assert second.id == "mine-2" and second.answers == ("x",) and second.topic_entities == ("T",)
    assert second.triples is not None and second.triples[0].tail == "x"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not JSON"),
        ('{"answers": ["x"]}', "'question'"),
        ('{"question": "q"}', "no 'answers'"),
        ('{"question": "q", "answers": "x", "triples": [1]}', "triples"),
    ],
)
def test_jsonl_loader_names_the_bad_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(ConfigurationError, match=message) as err:
        load_jsonl(path)
    assert "bad.jsonl:1" in str(err.value)


def test_missing_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="not found"):
        load_jsonl(tmp_path / "none.jsonl")
    with pytest.raises(ConfigurationError, match="not found"):
        load_metaqa("1hop", data_dir=tmp_path)


def test_explagraphs_loader_builds_question_graph_and_label(tmp_path: Path) -> None:
    folder = tmp_path / "explagraphs"
    (folder / "split").mkdir(parents=True)
    row = {
        "id": 7,
        "arg1": "Cannabis should be legal.",
        "arg2": "It is not bad.",
        "label": "support",
        "nodes": [[0, "cannabis"], [1, "legal"]],
        "edges": [[0, "capable of", 1]],
    }
    (folder / "explagraphs_gretriever_format.jsonl").write_text(json.dumps(row) + "\n")
    (folder / "split" / "test_indices.txt").write_text("7\n")
    data = load_explagraphs("test", data_dir=folder)
    example = data.examples[0]
    assert example.answers == ("support",)
    assert "Argument 1: Cannabis should be legal." in example.question
    assert example.triples is not None and tuple(example.triples[0]) == (
        "cannabis",
        "capable of",
        "legal",
    )
    assert data.graph_path is None


@pytest.mark.skipif(not (SHARED / "metaqa").exists(), reason="shared MetaQA data not present")
def test_real_metaqa_and_explagraphs_splits_load() -> None:
    for hop in ("1hop", "2hop", "3hop"):
        data = load_metaqa(hop)
        assert len(data) == 300
        assert all(e.topic_entities and e.answers for e in data.examples)
    graphs = load_explagraphs("test")
    assert len(graphs) == 554
    assert {e.answers[0] for e in graphs.examples} == {"support", "counter"}


def test_rog_definitions_score_as_reasoning_on_graphs_does() -> None:
    from kgeval.metrics import rog_f1, rog_hit

    # A gold answer as a substring of the whole prediction, after RoG's normalisation.
    assert rog_hit("The United States of America", ["united states"])
    assert not rog_hit("Canada", ["United States"])
    assert not rog_hit("Unknown", ["Unknown"])  # the typed Unknown answers nothing
    # Precision over the predicted answers, recall over the gold ones.
    assert rog_f1("Barbados; Barbadian dollar", ["Barbados"]) == 2 * 0.5 * 1 / 1.5
    assert rog_f1("Shane; Giant", ["Giant", "Shane"]) == 1.0


def test_no_topics_specs_withhold_the_topic_entities() -> None:
    import pytest

    from kgeval.datasets import load_dataset

    try:
        data = load_dataset("webqsp-no-topics:3")
    except Exception as err:  # the shared data is not there
        pytest.skip(str(err))
    assert data.name == "webqsp-no-topics" and len(data) == 3
    assert all(e.topic_entities == () for e in data.examples)
    assert [e.id for e in data.examples] == [e.id for e in load_dataset("webqsp:3").examples]


def test_a_no_topics_run_has_its_own_rows_outside_all() -> None:
    from kgeval.report import summary_rows

    def record(data: str) -> dict[str, object]:
        return {"dataset": data, "answers": ["A"], "prediction": "A", "hit": True}

    rows = summary_rows(
        {("m", "webqsp"): [record("webqsp")],
         ("m", "webqsp-no-topics"): [record("webqsp-no-topics")],
         ("m", "cwq"): [record("cwq"), record("cwq")]}
    )  # fmt: skip
    by_data = {r["dataset"]: r["n"] for r in rows}
    assert by_data == {"cwq": 2, "webqsp": 1, "webqsp-no-topics": 1, "all": 3}
