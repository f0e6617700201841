"""PathQuestion, WebQSP and CWQ loaders, spec strings and shorthands, on the small fixtures.

The fixtures (``tests/fixtures/data``, built by ``scripts/make_dataset_fixtures.py``) hold the
first 3 dev questions of PQ-3H, PQL-3H, WebQSP and CWQ with the triples around them; the full
shared sets are never read here.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

import kgeval as evaluation
import langchain_fasttog.models as models
from kgcore.exceptions import ConfigurationError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgeval.datasets import (
    CROSS_GRAPH_SPECS,
    SPEC_FORMS,
    Dataset,
    load_cwq,
    load_dataset,
    load_datasets,
    load_pathquestion,
    load_webqsp,
    read_benchmark_rows,
)
from kgeval.harness import evaluate
from kgqa.eval import add_eval_subcommand
from tests.support.paths import REPO

FIXTURES = REPO / "tests" / "fixtures" / "data"
PQ = FIXTURES / "pathquestion"
WQ = FIXTURES / "webqsp_cwq"


def check_graph(data: Dataset) -> InMemoryGraphStore:
    """The dataset's graph file exists, loads, and holds every question's topic entities."""
    assert data.graph_path is not None and data.graph_path.is_file()
    store = InMemoryGraphStore.from_file(data.graph_path, progress=False)
    assert store.num_triples() > 0
    for example in data.examples:
        assert all(store.has_node(t) for t in example.topic_entities), example.id
    return store


# -- loaders -------------------------------------------------------------------------------------


def test_pathquestion_loader_keeps_ids_questions_answers_topics_and_meta() -> None:
    data = load_pathquestion("PQ-3H", data_dir=PQ)
    assert data.name == "pathquestion-PQ-3H"
    assert [e.id for e in data.examples] == ["PQ-3H-00003", "PQ-3H-00022", "PQ-3H-00071"]
    first = data.examples[0]
    assert first.question == (
        "what is the anna of holstein-gottorp 's children 's mother 's place of birth ?"
    )
    assert first.answers == ("aurich",)
    assert first.topic_entities == ("anna of holstein-gottorp",)
    assert first.triples is None
    assert first.meta["path"] == ["children", "parents", "place_of_birth"]
    assert first.meta["answer_is_topic"] is False and first.meta["hops"] == 3
    assert data.graph_path == PQ / "kb_PQ-3H.txt"
    store = check_graph(data)
    assert store.has_node("aurich")  # the gold path is in the fixture graph


def test_pathquestion_names_are_read_in_any_case_and_keep_mixed_case_questions() -> None:
    data = load_pathquestion("pql-3h", data_dir=PQ)
    assert data.name == "pathquestion-PQL-3H"
    assert data.graph_path == PQ / "kb_PQL-3H.txt"
    assert data.examples[1].question == "what is the subject of of gender of Let Me In 's artist ?"
    assert data.examples[1].answers == ("Web development",)
    indiana = data.examples[2]
    assert indiana.meta["answer_is_topic"] is True
    assert indiana.answers == indiana.topic_entities == ("Indiana",)
    check_graph(data)


def test_webqsp_loader_keeps_the_file_fields() -> None:
    data = load_webqsp(data_dir=WQ)
    assert data.name == "webqsp" and data.graph_path == WQ / "kb.txt"
    assert [e.id for e in data.examples] == ["WebQTest-1", "WebQTest-1001", "WebQTest-1004"]
    first = data.examples[0]
    assert first.question == "what did james k polk do before he was president?"
    assert first.answers == (
        "United States Representative",
        "Governor of Tennessee",
        "Speaker of the United States House of Representatives",
    )
    assert first.topic_entities == ("James K. Polk",)
    assert first.meta["all_answers"] == list(first.answers)
    assert first.meta["topic_mids"] == ["m.042f1"] and "sparql" in first.meta
    assert len(data.examples[2].answers) == 21 and isinstance(data.examples[2].answers, tuple)
    check_graph(data)


def test_cwq_loader_keeps_several_topic_entities() -> None:
    data = load_cwq(limit=2, data_dir=WQ)
    assert data.name == "cwq" and data.graph_path == WQ / "kb.txt" and len(data) == 2
    first = data.examples[0]
    assert first.id == "WebQTest-1000_10aa3b0c992e4e6f4cf624c6c38c727f"
    assert first.question == "What country with the capital of Hagåtña is in Oceania?"
    assert first.answers == ("Guam",)
    assert first.topic_entities == ("Oceania", "Hagåtña")
    assert first.meta["compositionality_type"] == "conjunction"
    assert first.meta["webqsp_id"] == "WebQTest-1000"
    check_graph(data)


def test_limits_keep_the_first_questions_and_refuse_negatives() -> None:
    assert [e.id for e in load_webqsp(2, WQ).examples] == ["WebQTest-1", "WebQTest-1001"]
    assert len(load_pathquestion("PQ-3H", 0, PQ)) == 0
    assert len(load_cwq(99, WQ)) == 3
    with pytest.raises(ConfigurationError, match=">= 0"):
        load_webqsp(-1, WQ)


def test_loaders_default_to_the_shared_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(FIXTURES, tmp_path, dirs_exist_ok=True)
    monkeypatch.setenv("KGQA_DATA", str(tmp_path))
    assert load_webqsp().graph_path == tmp_path / "webqsp_cwq" / "kb.txt"
    assert load_pathquestion("PQ-3H").graph_path == tmp_path / "pathquestion" / "kb_PQ-3H.txt"
    assert [d.name for d in load_datasets("cwq:1")] == ["cwq"]


# -- spec strings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "name", "size"),
    [
        ("pathquestion:PQ-3H", "pathquestion-PQ-3H", 3),
        ("pathquestion:pq-3h:2", "pathquestion-PQ-3H", 2),
        ("pathquestion:PQL-3H:1", "pathquestion-PQL-3H", 1),
        ("webqsp", "webqsp", 3),
        ("webqsp:2", "webqsp", 2),
        ("cwq", "cwq", 3),
        ("cwq:0", "cwq", 0),
        ("WebQSP:1", "webqsp", 1),
    ],
)
def test_spec_strings(spec: str, name: str, size: int) -> None:
    data = load_dataset(spec, data_dir=FIXTURES)
    assert (data.name, len(data)) == (name, size)
    assert data.graph_path is not None and data.graph_path.is_file()
    assert [d.name for d in load_datasets(spec, data_dir=FIXTURES)] == [name]


@pytest.mark.parametrize(
    ("spec", "limit"),
    [
        ("metaqa:1hop:-1", "'-1'"),
        ("metaqa:2hop:x", "'x'"),
        ("metaqa:1hop:", "''"),
        ("explagraphs:test:1.5", "'1.5'"),
        ("pathquestion:PQ-3H:-2", "'-2'"),
        ("webqsp:x", "'x'"),
        ("webqsp:test", "'test'"),
        ("cwq:-1", "'-1'"),
        ("all:ten", "'ten'"),
        ("pathquestion:all:-1", "'-1'"),
        ("jsonl:qa.jsonl:-1", "'-1'"),
    ],
)
def test_a_bad_limit_is_reported_as_such(spec: str, limit: str) -> None:
    for load in (load_dataset, load_datasets):
        with pytest.raises(ConfigurationError, match=f"bad limit {limit}") as err:
            load(spec, data_dir=FIXTURES)
        assert "whole number >= 0" in str(err.value)


def test_a_bad_limit_after_a_jsonl_path(tmp_path: Path) -> None:
    path = tmp_path / "qa.jsonl"
    path.write_text(json.dumps({"question": "q [T]", "answers": ["a"]}) + "\n")
    with pytest.raises(ConfigurationError, match="bad limit 'x'"):
        load_dataset(f"jsonl:{path}:x")
    assert len(load_dataset(f"jsonl:{path}:0")) == 0


def test_an_unknown_spec_lists_every_form() -> None:
    with pytest.raises(ConfigurationError, match="unknown dataset spec 'webq:1'") as err:
        load_dataset("webq:1")
    for form in SPEC_FORMS:
        assert form in str(err.value)
    for spec in ("webqsp:dev:1", "metaqa:1hop:1:1"):
        with pytest.raises(ConfigurationError, match="unknown dataset spec"):
            load_datasets(spec)


def test_a_bad_pathquestion_name_lists_the_sets() -> None:
    with pytest.raises(ConfigurationError, match="unknown PathQuestion set 'PQ-4H'") as err:
        load_dataset("pathquestion:PQ-4H", data_dir=FIXTURES)
    assert "PQ-2H, PQ-3H, PQL-2H, PQL-3H" in str(err.value)
    with pytest.raises(ConfigurationError, match="pathquestion needs a set"):
        load_dataset("pathquestion", data_dir=FIXTURES)


def test_missing_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="PQ-2H questions not found"):
        load_dataset("pathquestion:PQ-2H", data_dir=FIXTURES)  # the fixtures hold 3H only
    with pytest.raises(ConfigurationError, match="webqsp questions not found"):
        load_webqsp(data_dir=tmp_path)
    with pytest.raises(ConfigurationError, match="not found"):
        load_datasets("all:1", data_dir=FIXTURES)  # no MetaQA in the fixtures


# -- shorthands ----------------------------------------------------------------------------------


def write_metaqa(root: Path) -> None:
    folder = root / "metaqa"
    folder.mkdir()
    for hop in ("1hop", "2hop", "3hop"):
        (folder / f"dev_{hop}.txt").write_text(f"q {hop} a [X]\tA\tt\nq {hop} b [Y]\tB\tt\n")
    (folder / "kb.txt").write_text("X|r|A\nY|r|B\n")


@pytest.fixture()
def full_layout(tmp_path: Path) -> Path:
    """The fixtures plus MetaQA and PQ-2H/PQL-2H stand-ins: every set ``all`` names."""
    shutil.copytree(FIXTURES, tmp_path, dirs_exist_ok=True)
    write_metaqa(tmp_path)
    for name in ("PQ", "PQL"):
        source, target = tmp_path / "pathquestion", tmp_path / "pathquestion"
        rows = (source / f"dev_{name}-3H.jsonl").read_text().replace(f"{name}-3H-", f"{name}-2H-")
        (target / f"dev_{name}-2H.jsonl").write_text(rows)
        shutil.copy(source / f"kb_{name}-3H.txt", target / f"kb_{name}-2H.txt")
    return tmp_path


def test_pathquestion_all_expands_to_the_four_sets_with_their_own_graphs(
    full_layout: Path,
) -> None:
    sets = load_datasets("pathquestion:all:2", data_dir=full_layout)
    assert [d.name for d in sets] == [
        "pathquestion-PQ-2H",
        "pathquestion-PQ-3H",
        "pathquestion-PQL-2H",
        "pathquestion-PQL-3H",
    ]
    assert [len(d) for d in sets] == [2, 2, 2, 2]
    folder = full_layout / "pathquestion"
    assert [d.graph_path for d in sets] == [
        folder / f"kb_{n}.txt" for n in ("PQ-2H", "PQ-3H", "PQL-2H", "PQL-3H")
    ]
    assert [len(d) for d in load_datasets("PATHQUESTION:ALL", data_dir=full_layout)] == [3] * 4


def test_all_expands_to_the_cross_graph_report_sets_in_order(full_layout: Path) -> None:
    sets = load_datasets("all:1", data_dir=full_layout)
    assert [d.name for d in sets] == [
        "metaqa-2hop",
        "metaqa-3hop",
        "pathquestion-PQ-3H",
        "pathquestion-PQL-3H",
        "webqsp",
        "cwq",
    ]
    assert len(CROSS_GRAPH_SPECS) == 6
    assert [len(d) for d in sets] == [1] * 6
    assert [len(d) for d in load_datasets("all", data_dir=full_layout)] == [2, 2, 3, 3, 3, 3]
    graphs = [d.graph_path for d in sets]
    assert graphs[0] == graphs[1] and graphs[4] == graphs[5]
    assert len(set(graphs)) == 4


def test_metaqa_all_stays_one_dataset(full_layout: Path) -> None:
    (merged,) = load_datasets("metaqa:all:1", data_dir=full_layout)
    assert merged.name == "metaqa-all" and len(merged) == 3
    assert load_dataset("metaqa:all:1", data_dir=full_layout).name == "metaqa-all"


@pytest.mark.parametrize("spec", ["all", "all:3", "pathquestion:all", "pathquestion:ALL:1"])
def test_load_dataset_points_a_shorthand_to_load_datasets(spec: str) -> None:
    with pytest.raises(ConfigurationError, match=r"load_datasets\(\)"):
        load_dataset(spec, data_dir=FIXTURES)


def test_evaluate_takes_the_new_specs_and_refuses_shorthands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KGQA_DATA", str(FIXTURES))
    run = evaluate("io", "webqsp:1", ScriptedLLM(["{Governor of Tennessee}"]), progress=False)
    assert run.dataset == "webqsp" and run.accuracy == 1.0
    with pytest.raises(ConfigurationError, match="load_datasets"):
        evaluate("io", "pathquestion:all:1", ScriptedLLM([]), progress=False)


def test_the_package_exports_the_new_loaders() -> None:
    for name in ("load_datasets", "load_pathquestion", "load_webqsp", "load_cwq"):
        assert name in evaluation.__all__ and hasattr(evaluation, name)


# -- malformed rows ------------------------------------------------------------------------------

GOOD = {"id": "q1", "question": "Who?", "answers": ["A"], "topic_entities": ["T"], "meta": {}}


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "expected a JSON object"),
        ({**GOOD, "id": 7}, "'id' must be a non-empty string"),
        ({**GOOD, "question": ""}, "'question' must be a non-empty string"),
        ({**GOOD, "answers": "A"}, "'answers' must be a list"),
        ({**GOOD, "answers": []}, "no 'answers'"),
        ({**GOOD, "topic_entities": [1]}, "'topic_entities' must be a list"),
        ({**GOOD, "meta": []}, "'meta' must be an object"),
        (GOOD, "id 'q1' repeats line 1"),
    ],
)
def test_a_malformed_row_names_file_and_line(tmp_path: Path, row: object, message: str) -> None:
    path = tmp_path / "dev_webqsp.jsonl"
    line = row if isinstance(row, str) else json.dumps(row)
    path.write_text(json.dumps(GOOD) + "\n\n" + line + "\n")
    with pytest.raises(ConfigurationError, match=message) as err:
        load_webqsp(data_dir=tmp_path)
    assert f"{path}:3" in str(err.value)


def test_rows_without_meta_get_an_empty_one(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    row = {key: value for key, value in GOOD.items() if key != "meta"}
    path.write_text(json.dumps({**row, "topic_entities": []}) + "\n")
    (example,) = read_benchmark_rows(path)
    assert example.meta == {} and example.topic_entities == ()


# -- kgqa eval -----------------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kgqa")
    add_eval_subcommand(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_eval_help_says_where_data_is_read_from(capsys: pytest.CaptureFixture[str]) -> None:
    from kgqa.cli import main

    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "KGQA_DATA" in text and "--data-dir DIR" in text and "../shared/data" in text
    for form in ("pathquestion:PQ-2H|PQ-3H|PQL-2H|PQL-3H[:N]", "webqsp[:N]", "cwq[:N]", "all[:N]"):
        assert form in text


def test_eval_runs_on_the_fixtures_with_a_scripted_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replies = ["{Governor of Tennessee}", "{Canada}"]
    monkeypatch.setattr(
        models, "resolve_chat_model", lambda spec: FakeListChatModel(responses=replies)
    )
    monkeypatch.setenv("KGQA_DATA", str(tmp_path / "nowhere"))  # --data-dir overrides it
    args = parse(
        ["eval", "--method", "io", "--data", "webqsp:2", "--data-dir", str(FIXTURES),
         "--llm", "fake:x", "--out", str(tmp_path), "--quiet", "--no-plots"]
    )  # fmt: skip
    assert args.handler(args) == 0
    records = [
        json.loads(line) for line in (tmp_path / "io__webqsp.jsonl").read_text().splitlines()
    ]
    assert [(r["id"], r["hit"]) for r in records] == [
        ("WebQTest-1", True),
        ("WebQTest-1001", False),
    ]


def test_eval_answers_each_dataset_on_its_own_graph_loaded_once(
    tmp_path: Path, full_layout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kgqa.common

    monkeypatch.setattr(
        models, "resolve_chat_model", lambda spec: FakeListChatModel(responses=["{x}"])
    )
    opened: list[str] = []

    def open_graph(spec: str, progress: bool = True) -> InMemoryGraphStore:
        opened.append(spec)
        return InMemoryGraphStore.from_file(spec, progress=False)

    monkeypatch.setattr(kgqa.common, "open_graph", open_graph)
    out = tmp_path / "out"
    args = parse(
        ["eval", "--method", "tog", "--data", "all:1", "--data-dir", str(full_layout),
         "--llm", "fake:x", "--out", str(out), "--quiet", "--no-plots"]
    )  # fmt: skip
    assert args.handler(args) == 0
    assert opened == [
        str(full_layout / "metaqa" / "kb.txt"),
        str(full_layout / "pathquestion" / "kb_PQ-3H.txt"),
        str(full_layout / "pathquestion" / "kb_PQL-3H.txt"),
        str(full_layout / "webqsp_cwq" / "kb.txt"),  # once for WebQSP and CWQ
    ]
    names = ["metaqa-2hop", "metaqa-3hop", "pathquestion-PQ-3H", "pathquestion-PQL-3H"]
    for name in [*names, "webqsp", "cwq"]:
        (record,) = [json.loads(x) for x in (out / f"tog__{name}.jsonl").read_text().splitlines()]
        assert record["dataset"] == name and record["error"] is None
