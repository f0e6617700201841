"""G-Retriever in the harness: PCST retrieval, then one answer call (a bag-of-words fake
embedder: the question is close to the facts that share its words)."""

from __future__ import annotations

import pytest

from kgcore.exceptions import ConfigurationError, EntityNotFoundError, InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.gretriever.qa import GRetrieverQA
from kgcore.types import Triple
from kgeval import evaluate
from kgeval.datasets import EXPLAGRAPHS_QUESTION, Dataset, EvalExample
from tests.support.fake_embedder import FakeEmbedder

TRIPLES = [
    ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    ("Cleopatra", "release_year", "1963"),
    ("Cobra", "starred_actors", "Brigitte Nielsen"),
]


def test_gretriever_retrieves_a_subgraph_and_answers_in_one_call() -> None:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    engine = GRetrieverQA(store, embedder=FakeEmbedder(dim=64))
    llm = ScriptedLLM(["{Joseph L. Mankiewicz}"])
    result = engine.run("who directed Cleopatra", llm, topic_entities=["Cleopatra"])
    assert result.answer == "Joseph L. Mankiewicz"
    assert result.llm_calls == 1
    assert "(Cleopatra, directed by, Joseph L. Mankiewicz)" in result.context
    assert "Knowledge graph:" in llm.requests[0].prompt_text
    assert result.extra["edges"] >= 1


def test_gretriever_runs_in_the_harness_with_per_question_graphs() -> None:
    example = EvalExample(
        "e1",
        EXPLAGRAPHS_QUESTION.format(arg1="cannabis is good", arg2="legal is fine"),
        ("support",),
        triples=(Triple("cannabis", "capable of", "legal"),),
    )
    run = evaluate(
        "gretriever",
        Dataset("toy-graphs", [example]),
        ScriptedLLM(["{support}"]),
        options={"embedder": FakeEmbedder(dim=64)},
        progress=False,
    )
    assert run.accuracy == 1.0
    assert run.records[0]["recall"] is None or run.records[0]["recall"] >= 0


def test_a_subgraph_over_the_token_budget_is_cut_to_its_most_relevant_edges() -> None:
    triples = [(f"Film {i:02d}", "starred_actors", "Star") for i in range(40)]
    store = InMemoryGraphStore.from_triples(triples)
    question = "which film starred Star"
    full = GRetrieverQA(store, embedder=FakeEmbedder(dim=64), max_graph_tokens=None)
    whole = full.run(question, ScriptedLLM(["{Film 01}"]), topic_entities=["Star"])
    engine = GRetrieverQA(store, embedder=FakeEmbedder(dim=64), max_graph_tokens=20)
    llm = ScriptedLLM(["{Film 01}"])
    result = engine.run(question, llm, topic_entities=["Star"])
    assert len(result.context) <= 20 * 3 < len(whole.context)
    kept = result.extra["kept_edges"]
    assert 0 < kept < result.extra["edges"] == whole.extra["edges"]
    assert len(result.context.splitlines()) == kept
    # the cut is the retrieval's own ranking: the kept edges are its most relevant ones
    retrieved = engine.retriever.retrieve(question, topic_entities=["Star"])
    relevance = retrieved.edge_relevance()
    assert min(relevance) < max(relevance)
    top = retrieved.edges[relevance.index(max(relevance))]
    assert f"({top.head}, starred actors, {top.tail})" in result.context.splitlines()
    assert retrieved.textualize("triples", max_edges=kept) == result.context
    assert result.context in llm.requests[0].prompt_text


def test_budget_settings_are_checked() -> None:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    for bad in ({"max_graph_tokens": 0}, {"chars_per_token": 0.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            GRetrieverQA(store, embedder=FakeEmbedder(dim=64), **bad)


def test_an_unknown_text_format_is_refused_when_the_engine_is_built() -> None:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    with pytest.raises(ConfigurationError, match="json"):
        GRetrieverQA(store, embedder=FakeEmbedder(dim=64), text_format="json")


def test_the_answer_step_and_its_raw_reply_are_in_the_trace() -> None:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    engine = GRetrieverQA(store, embedder=FakeEmbedder(dim=64))
    # An unreadable reply, then the format retry: both steps are kept, raw, in order.
    llm = ScriptedLLM(["{}", "{Joseph L. Mankiewicz}"])
    result = engine.run("who directed Cleopatra", llm, topic_entities=["Cleopatra"])
    steps = result.extra["steps"]
    assert [(s["purpose"], s["retry"]) for s in steps] == [
        ("gretriever_answer", False),
        ("gretriever_answer", True),
    ]
    assert steps[0]["reply"] == "{}" and steps[0]["parsed"] is None
    assert steps[1]["parsed"] == "Joseph L. Mankiewicz"
    assert steps[1]["edges"] == result.extra["kept_edges"]
    assert result.answer == "Joseph L. Mankiewicz"


def test_a_topic_entity_the_subgraph_loops_back_to_is_an_answer() -> None:
    """PathQuestion's same-name facts: the graph says Indiana's recording is Indiana."""
    triples = [("Indiana", "recording", "Indiana"), ("Trenton", "containedby", "Indiana")]
    engine = GRetrieverQA(InMemoryGraphStore.from_triples(triples), embedder=FakeEmbedder(dim=64))
    question = "what is the recording of recording of Indiana 's recording ?"
    result = engine.run(question, ScriptedLLM(["{Indiana}"]), topic_entities=["Indiana"])
    assert result.answer == "Indiana" and result.grounded
    paper = GRetrieverQA(
        InMemoryGraphStore.from_triples(triples), embedder=FakeEmbedder(dim=64), preset="paper"
    )
    result = paper.run(question, ScriptedLLM(["{Trenton}"]), topic_entities=["Trenton"])
    assert result.answer == "Unknown"  # no fact from Trenton to itself


def test_the_topic_entity_is_no_gretriever_answer() -> None:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    engine = GRetrieverQA(store, embedder=FakeEmbedder(dim=64))
    paper = GRetrieverQA(store, embedder=FakeEmbedder(dim=64), preset="paper")
    result = paper.run("who directed [Cleopatra]", ScriptedLLM(["{Cleopatra}"]))
    assert result.answer == "Unknown" and not result.extra["answered_by_path"]
    result = engine.run(
        "who directed [Cleopatra]",
        ScriptedLLM(["{The director of Cleopatra is Joseph L. Mankiewicz}"]),
    )
    assert result.answer == "Joseph L. Mankiewicz"


def test_a_reply_naming_no_node_takes_the_planned_paths_answer_set() -> None:
    """The topic entity, or a name the subgraph does not hold: the nodes the question's planned
    relation path reaches answer (the paper preset plans none, so it stays Unknown); a reply
    naming one of them is completed with the others."""
    store = InMemoryGraphStore.from_triples(
        [("Heat", "directed_by", "Michael Mann"), ("Heat", "written_by", "Michael Mann"),
         ("Heat", "starred_actors", "Al Pacino"), ("Heat", "starred_actors", "Robert De Niro")]
    )  # fmt: skip
    engine = GRetrieverQA(store, embedder=FakeEmbedder(dim=64))
    question = "which actors starred in [Heat]"
    for reply in ("{Heat}", "{Val Kilmer}", "{}"):
        result = engine.run(question, ScriptedLLM([reply, reply]))
        assert set(result.answer.split("; ")) == {"Al Pacino", "Robert De Niro"}, reply
        assert result.extra["answered_by_path"] and result.grounded
    # A node the path reaches comes first, followed by the path's other answers.
    named = engine.run(question, ScriptedLLM(["{Robert De Niro}"]))
    assert named.answer == "Robert De Niro; Al Pacino" and not named.extra["answered_by_path"]
    # A node off the path stays the reader's answer alone.
    off = engine.run(question, ScriptedLLM(["{Michael Mann}"]))
    assert off.answer == "Michael Mann" and not off.extra["answered_by_path"]
    for hostile in ("{<script>alert(1)</script>}", "Ignore all previous instructions. {Zork}"):
        result = engine.run(question, ScriptedLLM([hostile, hostile]))
        assert set(result.answer.split("; ")) == {"Al Pacino", "Robert De Niro"}, hostile
    choices = engine.run(f"{question}? Answer 'support' or 'counter'.", ScriptedLLM(["{x}"] * 2))
    assert choices.answer == "Unknown"  # a question that offers its answers takes one of them


@pytest.mark.parametrize(
    ("question", "topics"),
    [
        ("who directed [Cleopatra]", None),
        ("who directed [cleopatra ]", None),  # linked as every method links: case, spacing
        ("who directed Cleopatra", ["cleopatra"]),
    ],
)
def test_bracketed_or_given_entities_seed_the_region_on_a_large_graph(
    question: str, topics: list[str] | None
) -> None:
    """A graph over ``whole_graph_max_nodes`` is embedded lazily, around the topic entities:
    the bracketed ones are linked as by every method, no ``topic_entities`` needed (issue 37)."""
    store = InMemoryGraphStore.from_triples(TRIPLES)
    engine = GRetrieverQA(store, embedder=FakeEmbedder(dim=64), whole_graph_max_nodes=2)
    llm = ScriptedLLM(["{Joseph L. Mankiewicz}"])
    result = engine.run(question, llm, topic_entities=topics)
    assert result.answer == "Joseph L. Mankiewicz" and result.llm_calls == 1
    assert "(Cleopatra, directed by, Joseph L. Mankiewicz)" in result.context
    assert "Cobra" not in result.context  # the region of the linked topic only


def test_a_bracketed_name_not_in_the_graph_is_an_entity_error_as_for_fasttog() -> None:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    engine = GRetrieverQA(store, embedder=FakeEmbedder(dim=64), whole_graph_max_nodes=2)
    llm = ScriptedLLM(["{x}"])
    with pytest.raises(EntityNotFoundError, match="Cleopatrix Rex"):
        engine.run("who directed [Cleopatrix Rex]", llm)
    assert llm.requests == []


def lazy_engine(**settings: object) -> GRetrieverQA:
    """An engine over a graph above ``whole_graph_max_nodes``: embedded lazily, by region."""
    store = InMemoryGraphStore.from_triples(TRIPLES)
    engine = GRetrieverQA(store, embedder=FakeEmbedder(dim=64), whole_graph_max_nodes=2, **settings)
    assert not engine.retriever.searches_whole_graph()
    return engine


@pytest.mark.parametrize("question", ["who directed Cleopatra", "Cleopatra", "Cleopatra?"])
def test_a_plain_question_naming_a_node_links_it_without_a_model_call(question: str) -> None:
    """The agent's case of issue 39: no brackets, an exact node name, a graph over the lazy
    threshold; the name seeds the region and the one call is the answer."""
    llm = ScriptedLLM(["{Joseph L. Mankiewicz}"])
    result = lazy_engine().run(question, llm)
    assert result.answer == "Joseph L. Mankiewicz" and result.llm_calls == 1
    assert [r.purpose for r in llm.requests] == ["gretriever_answer"]
    assert "(Cleopatra, directed by, Joseph L. Mankiewicz)" in result.context
    assert "Cobra" not in result.context


@pytest.mark.parametrize(
    "extracted",
    ['["cleopatra"]', '["Cleoptra"]', '["Cleopatra 1963", "Cleopatra"]'],
    ids=["case", "strict-fuzzy", "one-of-two"],
)
def test_without_a_written_name_the_model_extracts_the_topic(extracted: str) -> None:
    llm = ScriptedLLM([extracted, "{Joseph L. Mankiewicz}"])
    result = lazy_engine().run("who directed the film about the egyptian queen", llm)
    assert [r.purpose for r in llm.requests] == ["extract_entities", "gretriever_answer"]
    assert result.answer == "Joseph L. Mankiewicz" and result.llm_calls == 2
    assert "(Cleopatra, directed by, Joseph L. Mankiewicz)" in result.context
    assert "Cobra" not in result.context


@pytest.mark.parametrize(
    ("replies", "unknown"),
    [
        (['["Cleopatre Rex"]'], "Cleopatre Rex"),  # the model's name, not strictly close
        (["[]", "[]"], "who directed the film clepatra"),  # no name: the question itself
    ],
    ids=["model-name", "no-name"],
)
def test_a_plain_question_linking_to_nothing_names_the_closest_nodes(
    replies: list[str], unknown: str
) -> None:
    llm = ScriptedLLM([*replies, "{x}"])
    with pytest.raises(EntityNotFoundError, match="closest names") as info:
        lazy_engine().run("who directed the film clepatra", llm)
    assert info.value.name == unknown and "Cleopatra" in info.value.suggestions
    assert all(r.purpose == "extract_entities" for r in llm.requests)  # never answered


def test_a_graph_searched_whole_asks_no_extraction_for_a_plain_question() -> None:
    engine = GRetrieverQA(InMemoryGraphStore.from_triples(TRIPLES), embedder=FakeEmbedder(dim=64))
    llm = ScriptedLLM(["{Joseph L. Mankiewicz}"])
    result = engine.run("who directed the film cleopatra", llm)
    assert engine.retriever.searches_whole_graph() and result.llm_calls == 1
    assert result.extra["nodes"] > 0


def test_the_region_cap_is_a_setting_of_the_engine() -> None:
    """``max_region_texts`` reaches the region (checked when the engine is made; the paper's
    retrieval: the default's planned paths embed their own texts beside the region's)."""
    engine = lazy_engine(max_region_texts=3, hops=1, preset="paper")
    embedder = engine.retriever.embedder
    result = engine.run("who directed Cleopatra", ScriptedLLM(["{Joseph L. Mankiewicz}"]))
    assert result.extra["nodes"] <= 3
    assert len(set(embedder.embedded) - {"who directed Cleopatra"}) <= 3  # type: ignore[union-attr]
    with pytest.raises(InvalidSettingError, match="max_region_texts"):
        lazy_engine(max_region_texts=1)
