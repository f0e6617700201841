"""The evaluation harness on a tiny dataset with scripted models: traces, resume, reports."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMReply, LLMRequest, ScriptedLLM
from kgcore.types import Triple
from kgeval import evaluate, make_method, method_names, read_traces
from kgeval.datasets import Dataset, EvalExample
from kgeval.harness import run_label
from kgeval.registry import METHODS, MethodSpec, keyword_names, method_options
from kgeval.report import markdown_table, summarize, write_report
from tests.support.records import trace_record

TRIPLES = [
    ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    ("Cobra", "starred_actors", "Brigitte Nielsen"),
]
ANSWERS = {
    "who directed [Cleopatra]": "Joseph L. Mankiewicz",
    "which film stars [Brigitte Nielsen]": "Cobra",
    "who directed [Cobra]": "Nobody Knows",
}


def toy_dataset() -> Dataset:
    examples = [
        EvalExample("q1", "who directed [Cleopatra]", ("Joseph L. Mankiewicz",), ("Cleopatra",)),
        EvalExample("q2", "which film stars [Brigitte Nielsen]", ("Cobra",), ("Brigitte Nielsen",)),
        EvalExample("q3", "who directed [Cobra]", ("George P. Cosmatos",), ("Cobra",)),
    ]
    return Dataset("toy", examples)


def oracle(request: LLMRequest) -> str:
    question = next(q for q in ANSWERS if q in request.prompt_text)
    if request.purpose == "tog_reason":
        return "Yes {" + ANSWERS[question] + "}"
    return "{" + ANSWERS[question] + "}"


def test_io_run_scores_and_writes_traces_and_summary(tmp_path: Path) -> None:
    llm = ScriptedLLM(oracle)
    run = evaluate("io", toy_dataset(), llm, out_dir=tmp_path, progress=False)
    assert run.accuracy == pytest.approx(2 / 3)
    assert len(llm.requests) == 3
    records = read_traces(run.trace_path)  # type: ignore[arg-type]
    assert {r["id"]: r["hit"] for r in records} == {"q1": True, "q2": True, "q3": False}
    first = next(r for r in records if r["id"] == "q1")
    assert first["llm_calls"] == 1 and first["recall"] is None and first["error"] is None
    assert first["prompt_tokens"] > 0 and first["run"] == "io" and first["dataset"] == "toy"
    summary = (tmp_path / "summary.md").read_text()
    assert "| io | toy | 3 | 0.67 |" in summary
    assert (tmp_path / "summary_accuracy_vs_calls.png").stat().st_size > 1000


def test_resume_skips_recorded_questions_without_calling_the_model(tmp_path: Path) -> None:
    data = toy_dataset()
    first = Dataset("toy", data.examples[:2])
    evaluate("io", first, ScriptedLLM(oracle), out_dir=tmp_path, progress=False, plots=False)
    llm = ScriptedLLM(oracle)
    run = evaluate("io", data, llm, out_dir=tmp_path, progress=False, plots=False)
    assert len(llm.requests) == 1  # only q3 is new
    assert run.skipped == 2
    assert [r["id"] for r in run.records] == ["q1", "q2", "q3"]
    lines = run.trace_path.read_text().splitlines()  # type: ignore[union-attr]
    assert len(lines) == 3


def test_a_failing_question_is_recorded_and_retried_on_request(tmp_path: Path) -> None:
    def flaky(request: LLMRequest) -> str:
        if "Cobra]" in request.prompt_text:
            raise RuntimeError("server down")
        return oracle(request)

    run = evaluate("io", toy_dataset(), ScriptedLLM(flaky), out_dir=tmp_path, progress=False)
    failed = next(r for r in run.records if r["id"] == "q3")
    # the model's error, named by the step it failed in (issue 37)
    assert failed["error"].startswith("LLM call for step 'io' failed")
    assert failed["error"].endswith("RuntimeError: server down")
    assert failed["hit"] is False
    assert run.summary["errors"] == 1
    llm = ScriptedLLM(oracle)
    evaluate("io", toy_dataset(), llm, out_dir=tmp_path, progress=False, plots=False)
    assert llm.requests == []  # errors are not retried by default
    run = evaluate(
        "io", toy_dataset(), llm, out_dir=tmp_path, progress=False, plots=False, retry_errors=True
    )
    assert len(llm.requests) == 1
    assert next(r for r in run.records if r["id"] == "q3")["error"] is None


def test_graph_method_reports_recall_depth_and_graph_time(tmp_path: Path) -> None:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    run = evaluate(
        "tog", toy_dataset(), ScriptedLLM(oracle), store=store, out_dir=tmp_path, progress=False
    )
    q1 = next(r for r in run.records if r["id"] == "q1")
    assert q1["hit"] and q1["depth"] == 1 and q1["recall"] == 1.0
    assert q1["graph_seconds"] >= 0 and q1["llm_calls"] == 1
    assert run.summary["recall"] is not None


def test_per_question_triples_get_their_own_graph() -> None:
    examples = [
        EvalExample(
            "g1",
            "who directed [Cleopatra]",
            ("Joseph L. Mankiewicz",),
            ("Cleopatra",),
            triples=tuple(Triple(*t) for t in TRIPLES[:1]),
        )
    ]
    run = evaluate("tog", Dataset("own", examples), ScriptedLLM(oracle), progress=False)
    assert run.accuracy == 1.0 and run.trace_path is None


def test_workers_run_questions_concurrently_with_a_serialized_model() -> None:
    active = {"now": 0, "max": 0}
    lock = threading.Lock()

    class SlowModel:
        def generate(self, request: LLMRequest) -> LLMReply:
            with lock:
                active["now"] += 1
                active["max"] = max(active["max"], active["now"])
            time.sleep(0.02)
            with lock:
                active["now"] -= 1
            return LLMReply(oracle(request))

    run = evaluate("cot", toy_dataset(), SlowModel(), workers=3, serialize_llm=True, progress=False)
    assert active["max"] == 1
    assert run.summary["n"] == 3
    parallel = {"now": 0, "max": 0}
    active.update(parallel)
    evaluate("cot", toy_dataset(), SlowModel(), workers=3, progress=False)
    assert active["max"] > 1


def test_bad_input_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="unknown method"):
        evaluate("tot", toy_dataset(), ScriptedLLM([]), progress=False)
    with pytest.raises(ConfigurationError, match="needs a knowledge graph"):
        evaluate("cgpe", toy_dataset(), ScriptedLLM([]), progress=False)
    with pytest.raises(ConfigurationError, match="workers"):
        evaluate("io", toy_dataset(), ScriptedLLM([]), workers=0, progress=False)
    with pytest.raises(ConfigurationError, match="bad option"):
        make_method("io", None, width=3)
    # An unreadable trace line is skipped and its question re-run: tests/kgeval/
    # test_traces_reliability.py (issue 12).


def test_registry_checks_options_against_what_the_engine_accepts() -> None:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    with pytest.raises(
        ConfigurationError, match=r"'tog': widht \(did you mean 'width'\?\) \(it takes .*\bwidth\b"
    ):
        make_method("tog", store, widht=2)
    with pytest.raises(ConfigurationError, match=r"'fasttog': beam .*max_community_size"):
        make_method("fasttog", store, beam=2)
    with pytest.raises(
        ConfigurationError, match=r"'cot': n \(it takes max_llm_calls, max_prompt_tokens\)"
    ):
        make_method("cot", None, n=3)
    # the accepted names come from the engines' signatures and configuration fields
    assert {"width", "max_depth", "seed"} <= method_options("tog")
    assert {"width", "max_community_size", "textualizer"} <= method_options("fasttog")
    assert {"max_branches", "match_threshold"} <= method_options("cgpe")
    assert {"text_format", "k_nodes", "hops"} <= method_options("gretriever")
    assert method_options("io") == {"max_llm_calls", "max_prompt_tokens"}  # the cost cap


@dataclass(frozen=True)
class _Inner:
    radius: int = 2


@dataclass(frozen=True)
class _Config:
    width: int = 3
    inner: _Inner = field(default_factory=_Inner)


class _OverridableEngine:
    def __init__(self, store: object, config: _Config | None = None, **overrides: int) -> None:
        self.config = config


class _StrictEngine:
    def __init__(self, store: object, config: _Config | None = None) -> None:
        self.config = config


def test_option_names_follow_nested_configs_and_config_overrides() -> None:
    assert keyword_names(_Config) == {"width", "inner", "radius"}
    # **overrides beside a config parameter: the config's names are options too
    assert keyword_names(_OverridableEngine, skip=("store",)) == {
        "config",
        "width",
        "inner",
        "radius",
    }
    assert keyword_names(_StrictEngine, skip=("store",)) == {"config"}


def test_registry_lets_a_type_error_inside_a_constructor_propagate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(store: object, width: int = 3) -> object:
        return len(width)  # type: ignore[arg-type]  # a bug: TypeError inside the engine

    spec = MethodSpec("broken", broken, False, "a buggy engine", lambda: frozenset({"width"}))
    monkeypatch.setitem(METHODS, "broken", spec)
    with pytest.raises(TypeError, match="has no len"):
        make_method("broken", None, width=2)
    with pytest.raises(ConfigurationError, match="bad option"):
        make_method("broken", None, depth=2)


def test_a_truncated_last_trace_line_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(trace_record("q1", hit=True)) + '\n{"id": "q2", "hi')
    assert read_traces(path) == [trace_record("q1", hit=True)]


def test_registry_names_every_method_and_options_name_the_run() -> None:
    assert method_names() == [
        "fasttog",
        "fasttog-node",
        "tog",
        "cgpe",
        "gretriever",
        "gretriever-gnn",
        "io",
        "cot",
        "cot-sc",
        "echo",
    ]
    store = InMemoryGraphStore.from_triples(TRIPLES)
    assert make_method("fasttog-node", store).config.lcs.max_community_size == 1
    assert make_method("fasttog", store, max_community_size=2).config.lcs.max_community_size == 2
    assert make_method("cot-sc", None, n=3).n == 3
    assert run_label("tog", {"width": 2, "max_depth": 1}) == "tog[max_depth=1,width=2]"


def test_the_harness_gives_fasttog_the_offline_embedder_unless_the_llm_chooses() -> None:
    from kgcore.embeddings import SentenceTransformerEmbedder

    store = InMemoryGraphStore.from_triples(TRIPLES)
    for name in ("fasttog", "fasttog-node"):
        engine = make_method(name, store)  # nothing is loaded until the first ranking
        assert engine.first_choice == engine.chain_choice == "similarity"
        assert isinstance(engine.similarity.embedder, SentenceTransformerEmbedder)
        first_by_llm = make_method(name, store, first_choice="llm")
        assert first_by_llm.first_choice == "llm"
        assert first_by_llm.chain_choice == "similarity"  # the chains still rank
        paper = make_method(name, store, first_choice="llm", chain_choice="llm")
        assert (
            paper.first_choice == paper.chain_choice == "llm"
            and paper.similarity.given_embedder is None
        )


def test_report_table_and_community_size_plot(tmp_path: Path) -> None:
    for size, hits in ((1, [True, False]), (2, [True, True]), (4, [False, True])):
        with (tmp_path / f"fasttog_{size}__d.jsonl").open("w") as handle:
            for i, hit in enumerate(hits):
                record = trace_record(
                    f"q{i}",
                    f"fasttog[max_community_size={size}]",
                    hit=hit,
                    llm_calls=4,
                    depth=size,
                    max_community_size=size,
                )
                handle.write(json.dumps(record) + "\n")
    out = write_report(tmp_path, "report.md", title="Toy")
    text = out.read_text()
    assert text.startswith("# Toy")
    assert "| fasttog[max_community_size=2] | d | 2 | 1.00 |" in text
    assert (tmp_path / "report_community_size.png").exists()
    assert "report_community_size.png" in text


def test_report_overview_ranks_runs_with_hit_at_1_per_dataset(tmp_path: Path) -> None:
    hits = {("io", "one"): [False, False], ("io", "two"): [True, False], ("cgpe", "one"): [True]}
    for (run, dataset), values in hits.items():
        with (tmp_path / f"{run}__{dataset}.jsonl").open("w") as handle:
            for i, hit in enumerate(values):
                record = trace_record(f"q{i}", run, dataset, hit=hit)
                calls = 1 if run == "io" else 3
                extra = {"llm_calls": calls, "recall": 1.0 if hit else 0.0}
                handle.write(json.dumps(record | extra) + "\n")
    text = write_report(tmp_path, plots=False).read_text()
    overview = text[text.index("## Overview") : text.index("## Details")]
    assert overview.splitlines()[2:5] == [
        "| method | n | hit@1 all | CI | F1 | strict | grounded | answer recall | one | two "
        "| misses, gold shown | LLM calls | prompt tok | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        "| cgpe | 1 | 1.00 | 0.21–1.00 | 1.00 | 1.00 | 0.00 | 1.00 | 1.00 | – | – | 3.0 | – | – |",
    ]
    io_row = (
        "| io | 4 | 0.25 | 0.05–0.70 | 0.25 | 0.25 | 0.00 | 0.25 | 0.00 | 0.50 | – | 1.0 | – | – |"
    )
    assert io_row in overview


def test_strict_grounded_and_topic_answers_in_the_summary() -> None:
    from kgeval.report import summarize

    base = {"answers": ["1991", "Shane"], "topic_entities": ["Giant"]}
    records = [
        base | {"prediction": "1990 | 1991", "hit": True, "context": "Giant release year 1991."},
        base | {"prediction": "Shane", "hit": True, "context": ""},  # a hit, not grounded
        base | {"prediction": "Giant", "hit": False, "context": "Giant"},
        base | {"prediction": "the Giant", "hit": True, "context": ""},  # topic entity: a miss
    ]
    summary = summarize(records)
    assert summary["hit@1"] == 0.5
    assert summary["strict"] == 0.25  # only "Shane" is a first answer equal to a gold one
    assert summary["grounded"] == 0.25  # only "1991" is also in the retrieved context
    low, high = summary["hit@1_ci"]
    assert 0.14 < low < 0.16 and 0.84 < high < 0.86


def test_misses_with_a_gold_answer_in_the_context_are_counted() -> None:
    base = {"answers": ["Oslo", "Bergen"], "topic_entities": ["Ann"]}
    records = [
        base | {"prediction": "Oslo", "hit": True, "context": "Ann born in Oslo."},  # a hit
        base | {"prediction": "Rome", "hit": False, "context": "Ann lived in Bergen."},  # shown
        base | {"prediction": "Rome", "hit": False, "context": "Ann lived in Rome."},  # not shown
        base | {"prediction": "Ann", "hit": True, "context": "Ann near Oslo."},  # an echo: shown
        base | {"prediction": "Rome", "hit": False, "context": ""},  # nothing retrieved
    ]
    assert summarize(records)["shown_misses"] == (2, 4)
    assert "| 2/4 |" in markdown_table([{"run": "m", "dataset": "d", **summarize(records)}])
    no_context = [base | {"prediction": "Rome", "hit": False, "context": ""}]
    assert summarize(no_context)["shown_misses"] is None  # a method that retrieves nothing


def test_a_loop_back_answer_is_a_hit_and_an_echo_is_a_miss() -> None:
    from kgeval.report import score_record

    loop_back = {"answers": ["Indiana"], "topic_entities": ["Indiana"], "context": "Indiana"}
    elsewhere = {"answers": ["Ohio"], "topic_entities": ["Indiana"], "context": "Indiana Ohio"}
    # the gold answer is the topic entity: answering it is right
    assert score_record(loop_back | {"prediction": "indiana", "hit": True}) == (
        True,
        True,
        True,
        1.0,
    )
    # the gold answer is elsewhere: the topic entity is an echo, even listed before the gold
    for prediction in ("Indiana", "Indiana; Ohio"):
        record = elsewhere | {"prediction": prediction, "hit": True}
        assert score_record(record) == (False, False, False, 0.0)
    # the gold answer first, the topic entity after it: a hit, with F1 for the extra name
    score = score_record(elsewhere | {"prediction": "Ohio; Indiana", "hit": True})
    assert score.hit and score.strict and score.f1 == pytest.approx(2 / 3)


def test_the_harness_scores_a_loop_back_hit_and_an_echo_miss(tmp_path: Path) -> None:
    examples = [
        EvalExample(
            "loop", "what is the recording of Indiana 's recording", ("Indiana",), ("Indiana",)
        ),
        EvalExample(
            "echo", "which state are the Indiana Pacers of", ("Indiana",), ("Indiana Pacers",)
        ),
        EvalExample("given", "where was it recorded", ("Shane",), ("Giant", "Shane")),
    ]
    run = evaluate(
        "echo", Dataset("d", examples), ScriptedLLM([]), out_dir=tmp_path, progress=False
    )
    records = {r["id"]: r for r in run.records}
    assert {k: (r["prediction"], r["hit"]) for k, r in records.items()} == {
        "loop": ("Indiana", True),
        "echo": ("Indiana Pacers", False),  # the gold is in it, but it echoes the topic
        "given": ("Giant", False),  # the first given topic entity; the gold is the second
    }
    assert all(r["llm_calls"] == 0 for r in records.values())
    assert run.summary["hit@1"] == pytest.approx(1 / 3) and run.summary["f1"] == pytest.approx(
        1 / 3
    )
    text = (tmp_path / "summary.md").read_text()
    assert "| echo | d | 3 | 0.33 |" in text
    # "given" loops back too (its gold is a topic entity, the second): only "echo" is left
    assert "| echo | d[gold≠topic] | 1 | 0.00 |" in text


def test_loop_back_split_rows_leave_the_all_rows_on_every_question() -> None:
    from kgeval.report import NOT_LOOP_BACK, overview_table, summary_rows

    def record(dataset: str, gold: str, prediction: str) -> dict[str, object]:
        return {
            "dataset": dataset,
            "answers": [gold],
            "topic_entities": ["Indiana"],
            "prediction": prediction,
            "hit": prediction == gold,
        }

    runs = {
        ("m", "pql"): [record("pql", "Indiana", "Indiana"), record("pql", "Ohio", "Ohio")],
        ("m", "pq"): [record("pq", "Ohio", "Texas"), record("pq", "Ohio", "Ohio")],
    }
    rows = summary_rows(runs)
    assert [(r["dataset"], r["n"], r["hit@1"]) for r in rows] == [
        ("pq", 2, 0.5),
        ("pql", 2, 1.0),
        ("pql" + NOT_LOOP_BACK, 1, 1.0),
        ("all", 4, 0.75),  # four questions, none counted twice
    ]
    overview = overview_table(rows)
    assert overview is not None
    assert "| m | 4 | 0.75 |" in overview and f"| pql{NOT_LOOP_BACK} |" in overview


def test_answer_f1_in_the_summary_and_the_tables(tmp_path: Path) -> None:
    base = {"answers": ["Paris", "Rome"], "topic_entities": []}
    records = [
        base | {"id": "1", "prediction": "Paris; Rome", "hit": True},  # F1 1
        base | {"id": "2", "prediction": "Paris | Oslo", "hit": True},  # P 1/2, R 1/2: F1 1/2
        base | {"id": "3", "prediction": "Unknown", "hit": False},  # F1 0
        base | {"id": "4", "prediction": "", "hit": False, "error": "x"},  # F1 0
    ]
    assert summarize(records)["f1"] == pytest.approx(1.5 / 4)
    lines = (json.dumps(trace_record(r["id"], **r)) + "\n" for r in records)
    (tmp_path / "io__d.jsonl").write_text("".join(lines))
    text = write_report(tmp_path, plots=False).read_text()
    assert "| method | data | n | hit@1 | CI | F1 | strict |" in text
    assert "| io | d | 4 | 0.50 | 0.15–0.85 | 0.38 |" in text


def test_a_report_on_one_dataset_has_no_overview(tmp_path: Path) -> None:
    (tmp_path / "io__d.jsonl").write_text(json.dumps(trace_record("1")))
    assert "## Overview" not in write_report(tmp_path, plots=False).read_text()


def test_summarize_averages_and_counts() -> None:
    records = [
        {"hit": True, "llm_calls": 2, "depth": 1, "recall": 1.0, "fell_back": True},
        {"hit": False, "llm_calls": 4, "depth": 3, "recall": None, "error": "x"},
    ]
    summary = summarize(records)
    assert summary["hit@1"] == 0.5 and summary["llm_calls"] == 3 and summary["depth"] == 2
    assert summary["recall"] == 1.0 and summary["fell_back"] == 1 and summary["errors"] == 1


def test_report_reads_only_trace_files(tmp_path: Path) -> None:
    (tmp_path / "questions.jsonl").write_text(json.dumps({"id": "x", "question": "q"}) + "\n")
    (tmp_path / "io__d.jsonl").write_text(json.dumps(trace_record("1")) + "\n")
    text = write_report(tmp_path, plots=False).read_text()
    assert "| io | d | 1 | 0.00 |" in text
    assert "questions" not in text and "| x |" not in text


def test_lazy_package_exports() -> None:
    import kgeval as evaluation

    assert evaluation.hit_at_1("{Paris}", ["paris"])
    with pytest.raises(AttributeError):
        _ = evaluation.not_there  # type: ignore[attr-defined]


def test_the_core_refuses_a_langchain_model_naming_the_adapter(tmp_path: Path) -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    model = FakeListChatModel(responses=["{x}"])
    with pytest.raises(ConfigurationError, match="LangChainLLM"):
        evaluate("io", toy_dataset(), model, out_dir=tmp_path, progress=False)


def test_the_same_error_on_the_first_questions_stops_the_run(tmp_path: Path) -> None:
    def broken(request: LLMRequest) -> str:
        raise TypeError("'LLMRequest' object is not iterable")

    with pytest.raises(ConfigurationError, match="first 3 questions all failed with: .*TypeError"):
        evaluate("io", toy_dataset(), ScriptedLLM(broken), out_dir=tmp_path, progress=False)
    assert read_traces(tmp_path / "io__toy.jsonl") == []  # nothing kept to resume from
    run = evaluate("io", toy_dataset(), ScriptedLLM(oracle), out_dir=tmp_path, progress=False)
    assert run.skipped == 0 and run.accuracy == pytest.approx(2 / 3)
    with pytest.raises(ConfigurationError, match="llm must be a kgcore ChatLLM.*got str"):
        evaluate("io", toy_dataset(), "gpt-4o", progress=False)


def test_answer_recall_counts_questions_holding_a_gold_answer_and_gold_share_the_share():
    records = [
        trace_record("q0", "m", "d", hit=True) | {"recall": 0.25},  # 1 of 4 golds shown
        trace_record("q1", "m", "d", hit=False) | {"recall": 0.0},
        trace_record("q2", "m", "d", hit=False) | {"recall": None},  # no context: not counted
    ]
    row = summarize(records)
    assert row["recall"] == 0.5 and row["gold_share"] == 0.125
