from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from kgcore.community import local_community_search
from kgcore.exceptions import (
    EmptyGraphError,
    EntityNotFoundError,
    InvalidQuestionError,
    InvalidSettingError,
)
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.fasttog import FastToG, FastToGConfig, FastToGResult
from kgcore.methods.fasttog.config import LeafSettings
from kgcore.methods.fasttog.leaf_facts import LeafFacts
from kgcore.methods.fasttog.presets import MOVIE_DEMOS
from kgcore.methods.fasttog.prompts import (
    REASON_DEMOS,
    ReasonDemo,
    demo_names,
    parse_braced_answer,
    reason_request,
)
from kgcore.paths import PathSettings
from kgcore.text import Triple2Text
from tests.support.fake_embedder import FakeEmbedder

QUESTION = "which films share the director of [Cleopatra]"


# Path planning off: these tests hold the community phases (test_path_planning.py holds it).
def community_config(**settings: Any) -> FastToGConfig:
    return FastToGConfig(paths=PathSettings(max_hops=0), **settings)


#: For control-flow tests whose scripted answers are placeholders the facts do not hold.
UNGROUNDED = community_config(width=2, max_community_size=2, grounded_answers=False)


def purposes(llm: ScriptedLLM) -> list[str]:
    return [r.purpose for r in llm.requests]


def test_initial_phase_starts_one_chain_per_choice(movie_store: InMemoryGraphStore) -> None:
    config = FastToGConfig(width=2, max_depth=1, max_community_size=2)
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{2, 1}"], reason=["{All About Eve}"])
    )
    result = FastToG(movie_store, config).run(QUESTION, llm)
    expected = local_community_search(
        movie_store,
        ["Cleopatra"],
        config.lcs,
        exclude={"Cleopatra"},
        seed=0,
        leaf_slots=config.leaves.kept,
    )
    assert [chain[0].nodes for chain in result.chains] == [
        expected.candidates[1].nodes,
        expected.candidates[0].nodes,
    ]
    assert result.answer == "All About Eve"
    assert (result.depth, result.llm_calls, result.fell_back) == (1, 2, False)
    assert purposes(llm) == ["prune", "reason"]
    assert result.topic_entities == ["Cleopatra"]


class BatchingTextualizer(Triple2Text):
    """Triple2Text that also writes batches (as Graph2Text's guarded textualizer does) and
    records the size of each batch it was asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []

    def texts(self, communities: Any) -> list[str]:
        self.batches.append(len(communities))
        return [self(nodes, triples) for nodes, triples in communities]


def test_a_choices_options_are_written_in_one_batch(movie_store: InMemoryGraphStore) -> None:
    config = community_config(width=1, max_community_size=2, grounded_answers=False)
    batching = BatchingTextualizer()
    llm = ScriptedLLM(["{1}", "{x}"])
    FastToG(movie_store, config, textualizer=batching).run(QUESTION, llm)
    plain = ScriptedLLM(["{1}", "{x}"])
    FastToG(movie_store, config).run(QUESTION, plain)
    offered = llm.requests[0].messages[-1].content.count("\n2. ") + 1
    assert batching.batches[0] > 1 and offered > 1  # every option at once
    assert [r.messages for r in llm.requests] == [r.messages for r in plain.requests]


def test_prompt_lists_candidates_as_numbered_options(movie_store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM(["{1}", "{x}"])
    config = community_config(width=2, max_community_size=2, grounded_answers=False)
    FastToG(movie_store, config).run(QUESTION, llm)
    prompt = llm.requests[0].messages[-1].content
    assert "Question: " + QUESTION in prompt
    assert "\n1. " in prompt and "up to 2" in prompt
    assert "none" not in prompt  # the first choice must start a chain
    reason = llm.requests[1].messages[-1].content
    # The paper's figure: start community once, then each chain, facts numbered.
    assert reason.count("Cleopatra.") == 1 and "\n1. Cleopatra.\nChain 1:\n2. " in reason
    assert reason.endswith("Question: " + QUESTION) and llm.requests[1].max_tokens >= 256
    # The instruction is in the system message: part of the saved prefix, not re-read per call.
    system = llm.requests[1].messages[0]
    assert system.role == "system" and "Break the question into steps" in system.content
    assert llm.requests[1].fixed_prefix == len(llm.requests[1].messages) - 1
    assert llm.requests[0].max_tokens >= 64


def test_reasoning_shows_demonstrations_as_earlier_exchanges(
    movie_store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM(["{1}", "{x}"])
    config = FastToGConfig(width=2, max_community_size=2, grounded_answers=False)
    FastToG(movie_store, config).run(QUESTION, llm)
    messages = llm.requests[1].messages
    assert [m.role for m in messages] == ["system"] + ["user", "assistant"] * 5 + ["user"]
    # Each demonstration is written with the reasoning template, its reply shows the form.
    for index, demo in enumerate(REASON_DEMOS):
        assert messages[1 + 2 * index].content == f"Facts:\n{demo.facts}\nQuestion: {demo.question}"
        assert messages[2 + 2 * index].content == demo.reply
    assert [m.content.rsplit("Answer: ", 1)[1] for m in messages[2:11:2]] == [
        "{Town B}",
        "{Region G}",
        "{Unknown}",
        "{Town S; Town T}",
        "{Company W; Company X}",
    ]
    assert QUESTION in messages[-1].content and "Person A" not in messages[-1].content


def test_own_demonstrations_or_none(movie_store: InMemoryGraphStore) -> None:
    demo = ReasonDemo(
        "1. Widget Q.", "what is [Widget Q] made of", "Steps: none. Answer: {Unknown}"
    )
    shown = {}
    for demos in ((demo,), ()):
        llm = ScriptedLLM(["{1}", "{x}"])
        config = FastToGConfig(max_community_size=2, grounded_answers=False, reason_demos=demos)
        FastToG(movie_store, config).run(QUESTION, llm)
        shown[len(demos)] = next(r for r in llm.requests if r.purpose == "reason").messages
    assert [m.role for m in shown[1]] == ["system", "user", "assistant", "user"]
    assert "what is [Widget Q] made of" in shown[1][1].content
    assert [m.role for m in shown[0]] == ["system", "user"]
    with pytest.raises(InvalidSettingError, match="reason_demos must be a tuple of ReasonDemo"):
        FastToGConfig(reason_demos=("a demo as text",))  # type: ignore[arg-type]


def test_own_reasoning_template_with_its_own_system_message(
    movie_store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM(["{1}", "{x}"])
    config = FastToGConfig(
        max_community_size=2,
        grounded_answers=False,
        reason_prompt="Q: {question}\nF: {facts}\nAnswer in braces.",
        reason_system="Be brief.",
        reason_demos=(),
    )
    FastToG(movie_store, config).run(QUESTION, llm)
    reason = next(r for r in llm.requests if r.purpose == "reason")
    assert [(m.role, m.content.split("\n")[0]) for m in reason.messages] == [
        ("system", "Be brief."),
        ("user", "Q: " + QUESTION),
    ]


def test_a_copied_demonstration_answer_is_not_an_answer() -> None:
    for demos in (REASON_DEMOS, MOVIE_DEMOS):
        names = demo_names(demos)
        for demo in demos:
            assert demo.names and parse_braced_answer(demo.reply, names) is None
            for name in demo.names:  # every placeholder the demonstration uses is listed
                assert name.casefold() in names
                assert parse_braced_answer(f"Steps: ... Answer: {{{name}}}", names) is None
    assert parse_braced_answer("Answer: {Person Zed}") == "Person Zed"
    # A demonstration's name inside a list is dropped, the real names kept.
    assert parse_braced_answer("Answer: {Town S; Shane; Company W}") == "Shane"
    assert parse_braced_answer("Answer: {Town S, Town T}") is None
    # The movie names are refused only where the movie demonstrations are shown.
    assert parse_braced_answer("Answer: {Film W}") == "Film W"
    assert parse_braced_answer("Answer: {Film W}", demo_names(MOVIE_DEMOS)) is None


def test_the_one_step_demonstration_stops_at_the_topics_own_fact() -> None:
    # WebQSP-style: the answer is the topic's own fact; going on to its region is wrong.
    demo = REASON_DEMOS[0]
    assert demo.question == "where was [Person A] born"
    assert "Town B contained by Region D" in demo.facts
    assert demo.reply.rsplit("Answer:", 1)[1].strip() == "{Town B}"


def test_the_three_step_demonstration_answers_past_the_bridge() -> None:
    # The spouse (the bridge) is not the answer; the places the children died are.
    demo = REASON_DEMOS[3]
    assert "the spouse of [Person K]" in demo.question
    answer = demo.reply.rsplit("Answer:", 1)[1]
    assert answer.strip() == "{Town S; Town T}" and "Person L" not in answer
    request = reason_request("who founded [X]", "X.", [["X founder Y."]])
    assert request.fixed_prefix == 1 + 2 * len(REASON_DEMOS) == 11


def test_the_also_demonstration_stops_at_the_shared_neighbours_other_things() -> None:
    # "X also founded which companies": two steps; neither the founder (the bridge) nor the
    # asked-about company is the answer.
    demo = REASON_DEMOS[4]
    assert "also founded which companies" in demo.question
    answer = demo.reply.rsplit("Answer:", 1)[1]
    assert answer.strip() == "{Company W; Company X}"
    assert "Company U; Company W; Company X founder Person Y" in demo.facts
    # The bridge, the asked-about company and what another relation gives are no answers.
    for not_answer in ("Person Y", "Company U", "Company Z"):
        assert not_answer not in answer


def test_the_metaqa_preset_restores_the_movie_demonstrations(
    movie_store: InMemoryGraphStore,
) -> None:
    config = FastToGConfig.preset("metaqa", width=2, max_community_size=2)
    assert config.reason_demos == MOVIE_DEMOS and config.width == 2
    llm = ScriptedLLM.by_purpose(repeat_last=True, replies=dict(prune=["{1}"], reason=["{x}"]))
    FastToG(movie_store, config.with_overrides(grounded_answers=False)).run(QUESTION, llm)
    reason = next(r for r in llm.requests if r.purpose == "reason")
    assert "who directed the films starred by [Actor X]" in reason.messages[1].content
    with pytest.raises(InvalidSettingError, match="unknown FastToG preset"):
        FastToGConfig.preset("films")


def test_chains_grow_until_answer(movie_store: InMemoryGraphStore) -> None:
    config = FastToGConfig(width=1, max_depth=4, max_community_size=2, grounded_answers=False)
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{1}"], reason=["{Unknown}", "{Shane}"])
    )
    result = FastToG(movie_store, config).run(QUESTION, llm)
    assert result.answer == "Shane"
    # The second step offers one candidate: taken without a call, as the reference does.
    assert purposes(llm) == ["prune", "reason", "reason"]
    assert [s.get("forced", False) for s in result.extra["steps"] if s["purpose"] == "prune"] == [
        False,
        True,
    ]
    assert [c.depth for c in result.chains[0]] == [1, 2]
    assert result.depth == 2 and not result.fell_back


def test_a_reply_cut_inside_its_answer_braces_answers_its_whole_names(
    movie_store: InMemoryGraphStore,
) -> None:
    # The reply cap ended the list mid-name: the whole names are the answer, no deeper step.
    config = FastToGConfig(width=1, max_depth=4, max_community_size=2, grounded_answers=False)
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{1}"], reason=["Steps: ... Answer: {Shane; Gia"])
    )
    result = FastToG(movie_store, config).run(QUESTION, llm)
    assert result.answer == "Shane" and result.depth == 1 and purposes(llm) == ["prune", "reason"]


def test_fallback_after_max_depth(movie_store: InMemoryGraphStore) -> None:
    config = FastToGConfig(width=1, max_depth=2, max_community_size=2, fallback="io")
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{1}"], reason=["{Unknown}"], io=["{Giant}"])
    )
    result = FastToG(movie_store, config).run(QUESTION, llm)
    assert purposes(llm) == ["prune", "reason", "reason", "io"]
    assert (result.answer, result.fell_back, result.depth) == ("Giant", True, 2)


def test_none_stops_only_that_chain(movie_store: InMemoryGraphStore) -> None:
    config = FastToGConfig(width=2, max_depth=2, max_community_size=2)
    llm = ScriptedLLM.by_purpose(
        repeat_last=True,
        replies=dict(prune=["{2, 3}", "{none}", "{1}"], reason=["{Unknown}"], cot=["{x}"]),
    )
    result = FastToG(movie_store, config).run(QUESTION, llm)
    assert [len(chain) for chain in result.chains] == [1, 2]
    assert purposes(llm) == ["prune", "reason", "prune", "reason", "cot"]


def test_unusable_reply_is_asked_again_once(movie_store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM(["let me think", "{1}", "{Shane}"])
    result = FastToG(movie_store, UNGROUNDED).run(QUESTION, llm)
    assert purposes(llm) == ["prune", "prune", "reason"]
    assert len(llm.requests[1].messages) == len(llm.requests[0].messages) + 2  # reply + reminder
    assert result.answer == "Shane" and len(result.chains) == 1
    assert result.extra["unparsed_replies"] == 1


def test_twice_unusable_reply_is_no_choice_then_fallback(movie_store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM(["let me think", "still thinking", "{Shane}"])
    result = FastToG(movie_store, UNGROUNDED).run(QUESTION, llm)
    assert purposes(llm) == ["prune", "prune", "cot"]
    assert result.chains == [] and result.fell_back and result.answer == "Shane"
    assert result.extra["unparsed_replies"] == 2


def test_valid_choices_in_a_sloppy_reply_are_kept(movie_store: InMemoryGraphStore) -> None:
    # The reference code dropped every chain unless the reply had exactly W letters.
    llm = ScriptedLLM(["Groups {1} seem useful.", "{Shane}"])
    result = FastToG(movie_store, UNGROUNDED).run(QUESTION, llm)
    assert len(result.chains) == 1 and result.llm_calls == 2


def test_history_is_never_revisited(metaqa_store: InMemoryGraphStore) -> None:
    store = metaqa_store
    config = FastToGConfig(width=3, max_depth=4)
    llm = ScriptedLLM.by_purpose(
        repeat_last=True,
        replies=dict(prune=["{1, 2, 3}", "{2}"], reason=["{Unknown}"], cot=["{x}"]),
    )
    result = FastToG(store, config).run("what films did the director of [Cleopatra] direct", llm)
    seen = list(result.start.nodes)
    for community in result.communities():
        assert not set(community.nodes) & set(seen)
        assert len(community.nodes) <= config.lcs.max_community_size
        seen += community.nodes
    assert max(len(chain) for chain in result.chains) == 4


@pytest.mark.parametrize("width,depth", [(1, 1), (2, 3), (3, 5), (4, 2)])
def test_llm_calls_within_the_paper_bound(
    metaqa_store: InMemoryGraphStore, width: int, depth: int
) -> None:
    store = metaqa_store
    rng = random.Random(width * 10 + depth)
    replies = ["{1}", "{2, 3}", "nonsense", "{none}", "{Unknown}", "3", "{1, 2, 3, 4}"]
    llm = ScriptedLLM(lambda r: rng.choice(replies) if r.purpose == "prune" else "{Unknown}")
    result = FastToG(store, FastToGConfig(width=width, max_depth=depth)).run(
        "who starred in the films directed by [Ridley Scott]", llm
    )
    assert result.llm_calls == len(llm.requests)
    assert result.llm_calls <= 2 * width * depth + depth + 2


def test_entities_are_extracted_by_the_llm_without_brackets(
    movie_store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM(['["cleopatra"]', "{1}", "{All About Eve}"])
    result = FastToG(movie_store, UNGROUNDED).run(
        "which films share the director of the film about the last queen of Egypt",
        llm,  # no name of the graph in it: the model names the entity
    )
    assert purposes(llm) == ["extract_entities", "prune", "reason"]
    assert result.topic_entities == ["Cleopatra"] and result.answer == "All About Eve"


def test_names_written_as_a_user_writes_them_need_no_extraction(
    movie_store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM(["{1}", "{All About Eve}"])
    result = FastToG(movie_store, UNGROUNDED).run(
        "which films share the director of cleopatra",
        llm,  # lower case: still the graph's
    )
    assert purposes(llm) == ["prune", "reason"]
    assert result.topic_entities == ["Cleopatra"] and result.answer == "All About Eve"


def test_names_written_as_the_graph_spells_them_need_no_extraction(
    movie_store: InMemoryGraphStore,
) -> None:
    llm = ScriptedLLM(["{1}", "{All About Eve}"])
    result = FastToG(movie_store, UNGROUNDED).run(
        "which films share the director of Cleopatra", llm
    )
    assert purposes(llm) == ["prune", "reason"]
    assert result.topic_entities == ["Cleopatra"] and result.answer == "All About Eve"


def test_unlinkable_extracted_entities_fall_back(movie_store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM(['["Zzzz Qqqq"]', "{Unknown}"])
    result = FastToG(movie_store).run("which films share the director of the egyptian queen", llm)
    assert purposes(llm) == ["extract_entities", "cot"]
    assert result.fell_back and result.answer == "Unknown" and result.topic_entities == []


def test_bad_input(movie_store: InMemoryGraphStore) -> None:
    engine = FastToG(movie_store)
    with pytest.raises(InvalidQuestionError, match="empty"):
        engine.run("   ", ScriptedLLM([]))
    with pytest.raises(EntityNotFoundError, match="Cleopatre.*closest names.*Cleopatra"):
        engine.run("who directed [Cleopatre II]", ScriptedLLM([]))
    with pytest.raises(EmptyGraphError):
        FastToG(InMemoryGraphStore()).run("who directed [Cleopatra]", ScriptedLLM([]))
    with pytest.raises(ValueError, match="algorithm"):
        FastToGConfig(algorithm="kmeans")


def test_same_seed_same_run_and_async_matches(metaqa_store: InMemoryGraphStore) -> None:
    store = metaqa_store

    def script():
        return ScriptedLLM.by_purpose(
            repeat_last=True,
            replies=dict(prune=["{1, 2}", "{1}"], reason=["{Unknown}"], cot=["{x}"]),
        )

    engine = FastToG(store, FastToGConfig(max_depth=3, seed=5))
    q = "what genres are the movies written by [Sidney Buchman] in"
    first = engine.run(q, script())
    second = asyncio.run(engine.arun(q, script()))
    assert [[c.nodes for c in ch] for ch in first.chains] == [
        [c.nodes for c in ch] for ch in second.chains
    ]
    assert first.answer == second.answer == "x"
    assert (
        first.graph_seconds > 0
        and first.prompt_tokens
        and first.total_seconds >= first.graph_seconds
    )


def test_node_level_preset_uses_single_node_communities(movie_store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{1, 2, 3}"], reason=["{x}"])
    )
    config = FastToGConfig.node_level(grounded_answers=False)
    result = FastToG(movie_store, config).run(QUESTION, llm)
    assert result.chains and all(len(c.nodes) == 1 for c in result.communities())


def test_no_call_when_the_start_offers_w_or_fewer(movie_store: InMemoryGraphStore) -> None:
    llm = ScriptedLLM.by_purpose(repeat_last=True, replies=dict(reason=["{All About Eve}"]))
    config = community_config(width=3, max_community_size=2)
    result = FastToG(movie_store, config).run(QUESTION, llm)
    assert purposes(llm) == ["reason"]  # 3 candidates, W=3: every one starts a chain
    assert len(result.chains) == 3 and result.llm_calls == 1
    first = result.extra["steps"][0]
    assert first["forced"] and len(first["offered"]) == 3


def test_reply_without_braces_is_unknown(movie_store: InMemoryGraphStore) -> None:
    config = FastToGConfig(width=3, max_depth=1, max_community_size=2, fallback="none")
    llm = ScriptedLLM(["The answer is All About Eve."])
    result = FastToG(movie_store, config).run(QUESTION, llm)
    assert result.answer == "Unknown"
    assert result.extra["steps"][-1]["reply"] == "The answer is All About Eve."


def test_topic_entity_is_not_an_answer(movie_store: InMemoryGraphStore) -> None:
    config = FastToGConfig(width=3, max_depth=2, max_community_size=2, fallback="io")
    llm = ScriptedLLM.by_purpose(
        repeat_last=True,
        replies=dict(prune=["{1}"], reason=["{Cleopatra}"], io=["{the Cleopatra}"]),
    )
    result = FastToG(movie_store, config).run(QUESTION, llm)
    assert purposes(llm)[-1] == "io" and result.answer == "Unknown"


def test_cot_sc_fallback_varies_the_seed(movie_store: InMemoryGraphStore) -> None:
    config = FastToGConfig(width=3, max_depth=1, max_community_size=2, fallback="cot-sc")
    llm = ScriptedLLM.by_purpose(
        repeat_last=True,
        replies=dict(reason=["{Unknown}"], cot_sc=["{Shane}", "{Giant}", "{Shane}"]),
    )
    result = FastToG(movie_store, config).run(QUESTION, llm)
    samples = [r for r in llm.requests if r.purpose == "cot_sc"]
    assert len(samples) == 5 and len({r.seed for r in samples}) == 5
    assert result.answer == "Shane" and result.fell_back and result.llm_calls == 6


def test_an_answer_the_facts_do_not_hold_is_unknown_and_chains_grow(
    movie_store: InMemoryGraphStore,
) -> None:
    # A small model's guess ("English") is not read as an answer: the chain grows instead.
    config = FastToGConfig(width=1, max_depth=3, max_community_size=2)
    llm = ScriptedLLM.by_purpose(
        repeat_last=True,
        replies=dict(prune=["{1}"], reason=["{English}", "{Unknown}"], cot=["{Shane}"]),
    )
    result = FastToG(movie_store, config).run(QUESTION, llm)
    reasons = [s for s in result.extra["steps"] if s["purpose"] == "reason"]
    assert reasons[0]["parsed"] == "English" and reasons[0]["answer"] is None
    assert result.depth > 1 and result.fell_back and result.answer == "Shane"


def test_only_the_names_the_facts_hold_are_kept(movie_store: InMemoryGraphStore) -> None:
    config = FastToGConfig(width=3, max_depth=1, max_community_size=2, fallback="none")
    llm = ScriptedLLM.by_purpose(repeat_last=True, replies=dict(prune=["{1, 2, 3}"], reason=["x"]))
    shown = FastToG(movie_store, config).run(QUESTION, llm).context  # what reasoning sees
    named = [n for n in ("All About Eve", "Guys and Dolls", "Giant", "1963") if n in shown]
    assert named, shown
    reply = "{" + "; ".join([named[0], "Vertigo", "Cleopatra"]) + "}"
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{1, 2, 3}"], reason=[reply])
    )
    result = FastToG(movie_store, config).run(QUESTION, llm)
    # The film the facts lack and the topic entity are dropped; the rest is the answer.
    assert result.answer == named[0] and not result.fell_back
    ungrounded = FastToG(movie_store, config.with_overrides(grounded_answers=False))
    assert ungrounded.run(QUESTION, llm).answer == named[0] + "; Vertigo; Cleopatra"


#: Cleopatra's year is a one-node community of the first step; its director and its star
#: each form a community with another film.
LEAF_TRIPLES = [
    ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    ("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
    ("Cleopatra", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "starred_actors", "Elizabeth Taylor"),
    ("Cleopatra", "release_year", "1963"),
]


def scripted_leaf_run(
    triples: list[tuple[str, str, str]],
    question: str,
    reason: list[str],
    leaves: dict[str, bool] | None = None,
    **settings: object,
) -> tuple[FastToGResult, ScriptedLLM]:
    """One run on ``triples`` with width 1 and communities of 2: the first option is picked,
    reasoning replies ``reason`` in turn, CoT says ``Unknown``; ``leaves`` set
    :class:`LeafSettings`."""
    config = community_config(
        width=1, max_community_size=2, leaves=LeafSettings(**(leaves or {}))
    ).with_overrides(**settings)
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{1}"], reason=reason, cot=["{Unknown}"])
    )
    result = FastToG(InMemoryGraphStore.from_triples(triples), config).run(question, llm)
    return result, llm


def leaf_run(
    with_topic: bool, start_chains: bool = False, **settings: object
) -> tuple[FastToGResult, ScriptedLLM]:
    return scripted_leaf_run(
        LEAF_TRIPLES,
        "when was [Cleopatra] released",
        ["{1963}"],
        leaves={"kept": 3 if with_topic else 0, "start_chains": start_chains},
        max_depth=1,
        **settings,
    )


def test_start_community_shows_the_topics_one_node_neighbours() -> None:
    result, llm = leaf_run(with_topic=True)
    assert result.start is not None
    assert result.start.text == "Cleopatra release year 1963."
    assert result.start.nodes == ("Cleopatra",)
    # The premise of the first choice and the reasoning facts both show the year ...
    assert "Premise: Cleopatra release year 1963." in llm.requests[0].messages[-1].content
    assert "1. Cleopatra release year 1963." in llm.requests[1].messages[-1].content
    # ... the year does not start a chain: only the two groups of two nodes are offered, and
    # the chain chose the director's group.
    options = llm.requests[0].messages[-1].content.split("Selection:\n")[1].splitlines()
    assert [line[:3] for line in options[:-1]] == ["1. ", "2. "]
    assert not any("release year" in line for line in options)
    assert [c.nodes for c in result.communities()] == [("All About Eve", "Joseph L. Mankiewicz")]
    # An answer the start community holds is grounded.
    assert (result.answer, result.depth, result.fell_back) == ("1963", 1, False)


def test_start_leaf_chains_offers_the_one_node_candidates_too() -> None:
    result, llm = leaf_run(with_topic=True, start_chains=True)
    assert "3. Cleopatra release year 1963." in llm.requests[0].messages[-1].content
    assert result.answer == "1963"


def test_first_choice_is_forced_when_w_or_fewer_groups_remain() -> None:
    """W = 3 and two groups of two nodes besides the year: both start chains, no prune call."""
    for leaf_chains, chains in ((False, 2), (True, 3)):
        result, llm = leaf_run(with_topic=True, width=3, start_chains=leaf_chains)
        assert [r.purpose for r in llm.requests] == ["reason"]
        assert len(result.chains) == chains
        first = result.extra["steps"][0]
        assert first["forced"] and len(first["offered"]) == chains
        # The pruned one-node candidate is kept for pictures and error analysis.
        assert [c.nodes for c in result.pruned] == ([("1963",)] if chains == 2 else [])


def test_one_node_candidates_are_offered_when_no_group_is_larger() -> None:
    """Every neighbour of the topic is a one-node candidate: they all stay options."""
    triples = [
        ("Cleopatra", "release_year", "1963"),
        ("Cleopatra", "has_genre", "Drama"),
        ("Cleopatra", "in_language", "English"),
    ]
    result, llm = scripted_leaf_run(triples, "when was [Cleopatra] released", ["{1963}"])
    first = result.extra["steps"][0]
    assert len(first["offered"]) == 3 and not first.get("forced")
    assert [r.purpose for r in llm.requests] == ["prune", "reason"]


def test_start_leaves_off_keeps_the_paper_start_community() -> None:
    result, llm = leaf_run(with_topic=False, neighbour_answers=False)
    assert result.start is not None and result.start.text == "Cleopatra."
    # The year is in no fact the model saw: its answer is not grounded, FastToG falls back.
    assert "1. Cleopatra.\n" in llm.requests[1].messages[-1].content
    assert result.fell_back and result.answer == "Unknown"
    # With neighbour_answers (the default) the graph confirms the year, a neighbour of the
    # topic: it is the answer, with no fallback.
    result, _ = leaf_run(with_topic=False)
    assert not result.fell_back and result.answer == "1963"


#: Giulio Petroni's film is a community with its star; the film's genre, a one-node community
#: of the step from it, is the answer.
CHAIN_LEAF_TRIPLES = [
    ("Death Rides a Horse", "directed_by", "Giulio Petroni"),
    ("Death Rides a Horse", "starred_actors", "Lee Van Cleef"),
    ("Death Rides a Horse", "has_genre", "Western"),
    ("The Sergeant", "starred_actors", "Lee Van Cleef"),
    ("The Sergeant", "has_genre", "Drama"),
]
GENRE_QUESTION = "the films directed by [Giulio Petroni] were in which genres"


def chain_leaf_run(
    with_chains: bool, reason: list[str], max_depth: int = 1
) -> tuple[FastToGResult, ScriptedLLM]:
    leaves = {"kept": 3 if with_chains else 0}
    return scripted_leaf_run(
        CHAIN_LEAF_TRIPLES, GENRE_QUESTION, reason, leaves=leaves, max_depth=max_depth
    )


def test_a_chain_community_shows_its_one_node_neighbours_as_it_joins() -> None:
    result, llm = chain_leaf_run(with_chains=True, reason=["{Western}"])
    facts = llm.requests[0].messages[-1].content
    assert (
        "2. Death Rides a Horse directed by Giulio Petroni. Death Rides a Horse starred actors "
        "Lee Van Cleef. Death Rides a Horse has genre Western.\nQuestion:"
    ) in facts
    # The genre is held by the first community's facts: a grounded answer at depth 1.
    assert (result.answer, result.depth, result.fell_back) == ("Western", 1, False)
    assert [c.nodes for c in result.communities()] == [("Death Rides a Horse", "Lee Van Cleef")]
    assert result.lcs_steps == 2  # the start's step and the step from the joined community


def test_chain_leaves_off_shows_only_the_community() -> None:
    result, llm = chain_leaf_run(with_chains=False, reason=["{Western}"])
    assert "Western" not in llm.requests[0].messages[-1].content
    # The model's "Western" is not in the facts it saw: not an answer; FastToG falls back.
    assert result.fell_back and result.answer == "Unknown" and result.lcs_steps == 1


def test_the_chain_grows_from_the_step_run_as_its_community_joined() -> None:
    result, llm = chain_leaf_run(with_chains=True, reason=["{Unknown}"], max_depth=2)
    config = FastToGConfig(width=1, max_depth=2, max_community_size=2)
    engine = FastToG(InMemoryGraphStore.from_triples(CHAIN_LEAF_TRIPLES), config)
    history = {"Giulio Petroni", "Death Rides a Horse", "Lee Van Cleef"}
    step = engine.search.step(("Death Rides a Horse", "Lee Van Cleef"), history, depth=1, chain=0)
    first, grow = [s for s in result.extra["steps"] if s["purpose"] == "prune"]
    assert first["forced"]  # one candidate at the start: taken without a call
    # The leaf stays a candidate; the offered candidates are the step's, sampled once.
    assert grow["offered"] == [list(c.nodes) for c in step.candidates]
    assert ["Western"] in grow["offered"]
    # The start's step, then one step per joined community (depth 1 and depth 2).
    assert result.lcs_steps == 3 and result.depth == 2


def test_chain_leaves_do_nothing_in_the_node_level_variant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = InMemoryGraphStore.from_triples(CHAIN_LEAF_TRIPLES)
    config = FastToGConfig.node_level().with_overrides(max_depth=2)
    assert config.leaves.shown  # on, yet a one-node community has no neighbours to look at

    def no_look_ahead(*args: object, **kwargs: object) -> None:
        raise AssertionError("a node-level chain looked ahead")

    monkeypatch.setattr(LeafFacts, "look_ahead", no_look_ahead)
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{1}"], reason=["{Unknown}"], cot=["{x}"])
    )
    result = FastToG(store, config).run(GENRE_QUESTION, llm)
    assert result.depth == 2


def test_first_choice_by_similarity_takes_the_closest_w_without_a_call(
    movie_store: InMemoryGraphStore,
) -> None:
    config = community_config(width=1, max_depth=1, max_community_size=2, first_choice="similarity")
    embedder = FakeEmbedder(keywords=("director", "directed"))
    llm = ScriptedLLM.by_purpose(replies={"reason": ["{All About Eve}"]})
    result = FastToG(movie_store, config, embedder=embedder).run(
        "which films were directed by the director of [Cleopatra]", llm
    )
    assert purposes(llm) == ["reason"]  # the first choice asked no LLM
    first = result.extra["steps"][0]
    assert first["ranked"] == "similarity" and len(first["offered"]) == 3
    assert first["offered"][first["picked"][0]] == ["All About Eve", "Joseph L. Mankiewicz"]
    assert [c.nodes for c in result.communities()] == [("All About Eve", "Joseph L. Mankiewicz")]
    assert result.answer == "All About Eve" and result.llm_calls == 1
    assert result.extra["first_choice"] == "similarity"


@pytest.mark.parametrize(
    ("first_choice", "with_embedder", "resolved"),
    [
        ("auto", True, "similarity"),
        ("auto", False, "llm"),
        ("llm", True, "llm"),
    ],
)
def test_auto_first_choice_ranks_by_similarity_only_with_an_embedder(
    movie_store: InMemoryGraphStore, first_choice: str, with_embedder: bool, resolved: str
) -> None:
    config = community_config(width=1, max_depth=1, max_community_size=2, first_choice=first_choice)
    embedder = FakeEmbedder(keywords=("director", "directed"))
    llm = ScriptedLLM.by_purpose(
        replies={"prune": ["{3}"], "reason": ["{All About Eve}"], "cot": ["{Unknown}"]}
    )
    engine = FastToG(movie_store, config, embedder=embedder if with_embedder else None)
    result = engine.run("which films were directed by the director of [Cleopatra]", llm)
    assert engine.first_choice == resolved == result.extra["first_choice"]
    first = result.extra["steps"][0]
    if resolved == "similarity":
        assert purposes(llm) == ["reason"] and first["ranked"] == "similarity"
        assert embedder.calls == 2  # the topic facts, then the first choice
    else:  # the paper's fine pruning: one multiple-choice call
        assert purposes(llm)[:2] == ["prune", "reason"] and "ranked" not in first
        assert embedder.calls == (1 if with_embedder else 0)  # the topic facts only
    assert FastToGConfig().first_choice == "auto"


def test_first_choice_by_similarity_embeds_nothing_when_the_choice_is_forced(
    movie_store: InMemoryGraphStore,
) -> None:
    config = community_config(
        width=3, max_depth=1, max_community_size=2, first_choice="similarity", topic_facts=0
    )
    embedder = FakeEmbedder(keywords=("directed",))
    llm = ScriptedLLM.by_purpose(replies={"reason": ["{All About Eve}"]})
    result = FastToG(movie_store, config, embedder=embedder).run(QUESTION, llm)
    assert embedder.calls == 0 and result.extra["steps"][0]["forced"]
    assert len(result.chains) == 3


def test_unknown_first_choice_is_refused() -> None:
    expected = "first_choice must be one of auto, llm, similarity"
    with pytest.raises(InvalidSettingError, match=expected):
        FastToGConfig(first_choice="random")
