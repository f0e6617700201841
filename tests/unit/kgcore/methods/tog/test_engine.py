"""ToG's engine: control flow and exact LLM call counts with scripted models."""

from __future__ import annotations

import pytest

from kgcore.exceptions import EntityNotFoundError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.tog import ToG

TRIPLES = [
    ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    ("Cleopatra", "release_year", "1963"),
    ("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
    ("All About Eve", "release_year", "1950"),
    ("Guys and Dolls", "directed_by", "Joseph L. Mankiewicz"),
]


@pytest.fixture()
def store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(TRIPLES)


def test_two_hop_question_answers_at_depth_two_with_exact_calls(store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM.by_purpose(
        {
            # depth 1: Cleopatra has two relations -> prune; one tail each -> no scoring
            "tog_relations": ["{A: 0.9, B: 0.1}", "{A: 1.0}"],
            # depth 2: Mankiewicz -> directed_by (reverse) has two new films -> one scoring call
            "tog_entities": ["{A: 0.8, B: 0.2}"],
            "tog_reason": ["{Unknown}", "{All About Eve}"],
        }
    )
    result = ToG(store).run("which films share the director of [Cleopatra]", llm)
    assert result.answer == "All About Eve"
    assert result.depth == 2
    assert not result.fell_back
    # depth 1: 1 prune + 1 reason; depth 2: prune of 1963 has no relations left, Mankiewicz has one
    # relation (no call), 1 entity scoring, 1 reason.
    assert [r.purpose for r in llm.requests] == [
        "tog_relations",
        "tog_reason",
        "tog_entities",
        "tog_reason",
    ]
    assert result.llm_calls == 4
    assert "(All About Eve, directed by, Joseph L. Mankiewicz)" in result.context
    assert result.extra["entity_calls"] == 1
    reason = llm.requests[1].messages[-1].content
    assert reason.startswith("Knowledge triplets:\n(Cleopatra, directed by, Joseph L. Mankiewicz)")
    assert reason.index("Question:") > reason.index("(Cleopatra")
    assert reason.endswith("If the triplets lack them, reply {Unknown}.")


def test_top_w_paths_are_kept_by_relation_times_entity_score(store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM.by_purpose(
        {
            "tog_relations": ["{A: 0.9, B: 0.1}"],
            "tog_entities": ["{A: 0.1, B: 0.9}"],
            "tog_reason": ["No", "Yes {Guys and Dolls}"],
        }
    )
    result = ToG(store, width=1).run("a film by the director of [Cleopatra]", llm)
    # width 1 keeps only directed_by at depth 1 (0.9 > 0.1), then the best-scored film
    assert result.context.splitlines() == [
        "(Cleopatra, directed by, Joseph L. Mankiewicz)",
        "(Guys and Dolls, directed by, Joseph L. Mankiewicz)",
    ]
    entity_prompt = next(r for r in llm.requests if r.purpose == "tog_entities").prompt_text
    assert "A. All About Eve" in entity_prompt and "B. Guys and Dolls" in entity_prompt


def test_unparseable_relation_reply_is_retried_once_then_dropped_and_cot_answers(
    store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM.by_purpose(
        {"tog_relations": ["I cannot\ndecide.", "Sorry\nreally."], "cot": ["so {1963}"]}
    )
    result = ToG(store).run("when was [Cleopatra] released", llm)
    assert [r.purpose for r in llm.requests] == ["tog_relations", "tog_relations", "cot"]
    assert llm.requests[1].messages[-1].content.startswith("Reply only")
    assert result.answer == "1963"
    assert result.fell_back
    assert result.extra["unparsed_replies"] == 2  # the reply and its retry


def test_max_depth_without_sufficient_paths_falls_back_to_cot(store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM.by_purpose(
        {"tog_relations": ["{A: 0.5, B: 0.5}"], "tog_reason": ["No"], "cot": ["{Unknown}"]}
    )
    result = ToG(store, max_depth=1).run("who directed [Cleopatra]", llm)
    assert result.depth == 1
    assert result.fell_back
    assert result.answer == "Unknown"
    assert result.llm_calls == 3


def test_unclear_sufficiency_reply_counts_as_no_after_a_retry(store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM.by_purpose(
        {"tog_relations": ["{A: 1.0}"], "tog_reason": ["Maybe.", "Perhaps."], "cot": ["{X}"]}
    )
    result = ToG(store, max_depth=1).run("who directed [Cleopatra]", llm)
    assert [r.purpose for r in llm.requests] == ["tog_relations", "tog_reason", "tog_reason", "cot"]
    assert result.fell_back


def test_large_neighbourhoods_are_sampled_with_the_seed() -> None:
    triples = [(f"Film {i:02d}", "starred_actors", "Star") for i in range(30)]
    store = InMemoryGraphStore.from_triples(triples)

    def run(seed: int) -> str:
        llm = ScriptedLLM.by_purpose({"tog_entities": ["{A: 1.0}"], "tog_reason": ["Yes {Film}"]})
        ToG(store, seed=seed, entity_sample_threshold=20, entity_sample_size=4).run(
            "films with [Star]", llm
        )
        return llm.requests[0].prompt_text

    first, again, other = run(1), run(1), run(2)
    assert first == again
    assert first.count("\n") == again.count("\n")
    assert "E." not in first and "D. Film" in first  # 4 candidates shown
    assert first != other


def test_topic_entities_that_do_not_link_raise_with_suggestions(store: InMemoryGraphStore) -> None:
    with pytest.raises(EntityNotFoundError, match="closest names"):
        ToG(store).run("who directed [Zzzz Qqqq]", ScriptedLLM([]))


def test_without_brackets_the_llm_extracts_the_topic_entity(store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM.by_purpose(
        {"extract_entities": ['["Guys and Dolls"]'], "tog_reason": ["Yes {Joseph L. Mankiewicz}"]}
    )
    result = ToG(store).run("who directed that musical with gamblers", llm)  # names no node
    assert result.answer == "Joseph L. Mankiewicz"
    assert result.llm_calls == 2


def test_names_written_as_the_graph_spells_them_are_linked_without_the_llm(
    store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM.by_purpose({"tog_reason": ["Yes {Joseph L. Mankiewicz}"]})
    result = ToG(store).run("who directed Guys and Dolls", llm)
    assert result.answer == "Joseph L. Mankiewicz" and result.llm_calls == 1


def test_bad_settings_are_refused(store: InMemoryGraphStore) -> None:
    with pytest.raises(ValueError):
        ToG(store, width=0)
    with pytest.raises(ValueError):
        ToG(store, entity_sample_size=30, entity_sample_threshold=20)


def test_topic_entity_is_not_an_answer() -> None:
    store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies={"tog_reason": ["{Cleopatra}"], "cot": ["{Cleopatra}"]}
    )
    result = ToG(store, max_depth=1).run("who directed [Cleopatra]", llm)
    assert result.fell_back and result.answer == "Unknown"


def test_a_sentence_verdict_about_the_topic_answers_with_its_named_part() -> None:
    store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
    llm = ScriptedLLM.by_purpose(
        repeat_last=True,
        replies={"tog_reason": ["Yes. Answer: The director of Cleopatra is Joseph L. Mankiewicz"]},
    )
    result = ToG(store, max_depth=1).run("who directed [Cleopatra]", llm)
    assert not result.fell_back
    assert result.answer == "Joseph L. Mankiewicz"
