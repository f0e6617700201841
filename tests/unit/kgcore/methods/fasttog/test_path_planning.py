"""FastToG's path planning: relation paths the graph holds, followed, read by the model.

``paths.mode="read"`` (the default): the best paths join the facts of the reasoning step, and
the path that reaches the answer the model names gives the answer set. ``"choose"``: one call
in which the model chooses a path by number.
"""

from __future__ import annotations

import re

from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMRequest, ScriptedLLM
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.paths import PathSettings
from tests.support.path_graphs import FAMILY

THREE_HOPS = "what is the birthplace of the spouse of [Ann] 's child ?"
CHOOSE = FastToGConfig(paths=PathSettings(mode="choose"))
#: ``"read"`` with the model answering a chain question from its aligned path.
MODEL = FastToGConfig(paths=PathSettings(chain_answer="model"))


def engine(config: FastToGConfig = CHOOSE) -> FastToG:
    return FastToG(InMemoryGraphStore.from_triples(FAMILY), config)


def choose(label: str, otherwise: str = "{Unknown}"):
    """A scripted model that picks the offered path written ``label``, and answers
    ``otherwise`` to every other request."""

    def reply(request: LLMRequest) -> str:
        if request.purpose != "path":
            return otherwise
        for line in request.messages[-1].content.splitlines():
            found = re.match(r"(\d+)\. From [^:]+: (.+?)\. Example:", line)
            if found and found.group(2) == label:
                return "{" + found.group(1) + "}"
        return "{none}"

    return ScriptedLLM(reply)


def test_a_three_hop_question_is_answered_through_a_compound_node_in_one_call() -> None:
    llm = choose("child / spouse, spouse / birthplace")
    result = engine().run(THREE_HOPS, llm)
    assert result.answer == "Emden"
    assert result.llm_calls == 1 and result.grounded and not result.fell_back
    facts = [tuple(t) for t in result.chains[0][0].triples]
    assert facts == [
        ("Ann", "child", "Bob"),
        ("Bob", "marriage.spouse / marriage.spouse", "Dee"),
        ("Dee", "birthplace", "Emden"),
    ]
    assert "Dee birthplace Emden" in result.context  # the evidence is the run's context
    assert result.extra["path"]["label"] == "child / spouse, spouse / birthplace"
    steps = [s["purpose"] for s in result.extra["steps"]]
    assert steps == ["path", "path"]  # the call, then the path followed


def test_a_path_back_to_the_topic_answers_the_topic_never_a_bare_echo() -> None:
    question = "what is the recording of recording of [Song] 's recording ?"
    result = engine().run(question, choose("recording / recording / recording"))
    assert result.answer == "Song"
    assert [tuple(t) for t in result.chains[0][0].triples] == [("Song", "recording", "Song")]
    # The model naming the topic in its reasoning is still refused: it falls back.
    echo = engine().run(question, choose("no such path", otherwise="{Song}"))
    assert echo.answer != "Song"


def test_no_path_chosen_and_fasttog_reasons_over_communities() -> None:
    llm = choose("no such path", otherwise="{Emden}")
    result = engine().run(THREE_HOPS, llm)
    purposes = [r.purpose for r in llm.requests]
    assert purposes[0] == "path" and "reason" in purposes
    assert "path" not in result.extra


def test_a_path_that_reaches_too_many_nodes_joins_the_start_community() -> None:
    config = FastToGConfig(paths=PathSettings(mode="choose", max_answers=5, max_facts=80))
    llm = choose("citizen of / citizen of of", otherwise="{Unknown}")
    result = engine(config).run("who are the fellow citizens of [Cid]", llm)
    assert result.extra["path"]["reached"] == 60  # more than 5: no answer from the path
    assert result.start is not None
    path_facts = {("Cid", "citizen of", "Frisia"), ("Person 0", "citizen of", "Frisia")}
    assert path_facts <= {tuple(t) for t in result.start.triples}
    reasoning = [r for r in llm.requests if r.purpose == "reason"]
    assert reasoning and "Person 0;" in reasoning[0].messages[-1].content


def test_path_planning_off_sends_no_path_request_and_the_paper_preset_has_none() -> None:
    assert not FastToGConfig.paper().paths.enabled
    engine = FastToG(
        InMemoryGraphStore.from_triples(FAMILY), FastToGConfig(paths=PathSettings(max_hops=0))
    )
    llm = ScriptedLLM(lambda request: "{1}" if request.purpose == "prune" else "{Emden}")
    engine.run(THREE_HOPS, llm)
    assert "path" not in [r.purpose for r in llm.requests]


def test_an_unusable_plan_reply_is_not_asked_again_and_the_method_goes_on() -> None:
    llm = ScriptedLLM(lambda request: "I think so" if request.purpose == "path" else "{Emden}")
    result = engine().run(THREE_HOPS, llm)
    assert [r.purpose for r in llm.requests][:2] == ["path", "reason"]
    assert result.answer == "Emden"  # from the communities' reasoning
    assert result.extra["unparsed_replies"] == 1


def test_a_set_answer_lists_every_reached_node_best_supported_first() -> None:
    result = engine().run(
        "the birthplace of [Ann] 's child 's parent ?", choose("child / parent / birthplace")
    )
    assert result.answer == "Aurich; Leer"
    assert result.extra["answers"] == ["Aurich", "Leer"]


# -- paths.mode="read" (the default) ------------------------------------------------------


def reasoning(answer: str):
    """A scripted model that answers ``answer`` at every reasoning step (and picks the first
    option of any choice), recording what it was shown."""
    return ScriptedLLM(lambda request: answer if request.purpose == "reason" else "{1}")


def test_read_the_followed_paths_and_answer_through_a_compound_node_in_one_call() -> None:
    llm = reasoning("{Emden}")
    result = engine(MODEL).run(THREE_HOPS, llm)
    assert result.answer == "Emden" and result.llm_calls == 1
    shown = llm.requests[0].messages[-1].content
    assert "Bob spouse, spouse Dee" in shown and "Leads to: Emden." in shown
    assert result.extra["path"]["label"] == "child / spouse, spouse / birthplace"
    evidence = result.chains[0][0]
    assert [tuple(t) for t in evidence.triples] == [
        ("Ann", "child", "Bob"),
        ("Bob", "marriage.spouse / marriage.spouse", "Dee"),
        ("Dee", "birthplace", "Emden"),
    ]


def test_read_a_named_answer_gives_the_whole_set_its_path_reaches() -> None:
    result = engine(MODEL).run("the birthplace of [Ann] 's child 's parent ?", reasoning("{Leer}"))
    assert result.answer == "Leer; Aurich"
    assert result.extra["answers"] == ["Aurich", "Leer"]  # as the evidence supports


def test_read_a_shortened_name_is_the_node_it_names_and_gives_that_path_s_set() -> None:
    games = [
        ("Hawks", "championships", "2014 NFC Championship Game"),
        ("Hawks", "championships", "Super Bowl XLVIII"),
        ("Hawks", "home", "Seattle"),
        ("Seattle", "team", "Hawks"),
    ]
    store = InMemoryGraphStore.from_triples(games)
    result = FastToG(store, MODEL).run(
        "what year did [Hawks] win the championships ?", reasoning("Steps: ... Answer: {2014}")
    )
    # "2014" is the shown node "2014 NFC Championship Game", which the path reaches.
    assert result.answer == "2014 NFC Championship Game; Super Bowl XLVIII"
    assert result.extra["path"]["label"] == "championships"


def test_read_a_loop_back_answer_counts_an_echo_does_not() -> None:
    question = "what is the recording of recording of [Song] 's recording ?"
    assert engine(MODEL).run(question, reasoning("{Song}")).answer == "Song"
    # A topic whose only link is its self-loop has no community: the path is read alone.
    solo = engine(MODEL).run("the recording of [Solo] 's recording ?", reasoning("{Solo}"))
    assert solo.answer == "Solo" and not solo.fell_back and solo.llm_calls == 1
    # Ann: no path leads back to Ann alone, so naming her is an echo and is refused.
    echo = engine(MODEL).run(THREE_HOPS, reasoning("{Ann}"))
    assert echo.answer != "Ann" and "path" not in echo.extra


def test_read_an_answer_no_path_reaches_is_fasttog_s_own() -> None:
    one_path = FastToGConfig(paths=PathSettings(offered=1, chain_answer="model"))  # Emden's
    result = engine(one_path).run(THREE_HOPS, reasoning("{Leer}"))
    assert result.answer == "Leer" and "path" not in result.extra  # a fact of Ann's, shown


# -- paths.chain_answer="graph" (the default) ---------------------------------------------


def test_a_chain_question_is_answered_by_its_aligned_path_with_no_llm_call() -> None:
    llm = reasoning("{Ann}")  # never asked
    result = engine(FastToGConfig()).run(THREE_HOPS, llm)
    assert result.answer == "Emden" and result.llm_calls == 0 and llm.requests == []
    assert result.extra["path"]["label"] == "child / spouse, spouse / birthplace"
    assert [tuple(t) for t in result.chains[0][0].triples][-1] == ("Dee", "birthplace", "Emden")
    sets = engine(FastToGConfig()).run("the birthplace of [Ann] 's child 's parent ?", llm)
    assert sets.answer == "Aurich; Leer" and sets.extra["answers"] == ["Aurich", "Leer"]


def test_a_chain_path_back_to_the_topic_answers_it_and_too_many_nodes_go_to_the_model() -> None:
    question = "what is the recording of recording of [Song] 's recording ?"
    assert engine(FastToGConfig()).run(question, reasoning("{Unknown}")).answer == "Song"
    few = FastToGConfig(paths=PathSettings(max_answers=1))
    llm = reasoning("{Leer}")
    engine(few).run("the birthplace of [Ann] 's child 's parent ?", llm)
    assert llm.requests and llm.requests[0].purpose == "reason"  # two nodes: the model reads


def test_every_answer_of_a_set_has_its_own_facts_in_the_evidence() -> None:
    films = [(f"Film {i}", "starred_actors", "Ann") for i in range(6)]
    directors = [(f"Film {i}", "directed_by", f"Director {i}") for i in range(6)]
    store = InMemoryGraphStore.from_triples(films + directors)
    config = FastToGConfig(paths=PathSettings(max_facts=3))  # the path's facts in the prompt
    llm = reasoning("{Director 0}")
    result = FastToG(store, config).run("which person directed the films acted by [Ann]", llm)
    answers = result.answer.split("; ")
    assert sorted(answers) == [f"Director {i}" for i in range(6)]
    evidence = {tuple(t) for t in result.chains[0][0].triples}
    assert all((f"Film {i}", "directed_by", f"Director {i}") in evidence for i in range(6))


# -- paths.read_alone ---------------------------------------------------------------------

ALONE = FastToGConfig(paths=PathSettings(read_alone=True))
NOT_A_CHAIN = "birthplace of the person married to the child of [Ann]"


def test_read_alone_shows_the_paths_without_communities_and_a_reached_node_answers() -> None:
    llm = reasoning("{Emden}")
    result = engine(ALONE).run(NOT_A_CHAIN, llm)
    assert result.answer == "Emden" and result.llm_calls == 1
    shown = llm.requests[0].messages[-1].content
    assert "Leads to:" in shown and "Frisia" not in shown  # the start community is not shown
    assert result.extra["path"]["label"] == "child / spouse, spouse / birthplace"


def test_read_alone_an_answer_no_path_reaches_lets_fasttog_go_on() -> None:
    llm = reasoning("{Frisia}")  # a node of the start community, on no offered path
    result = engine(ALONE).run(NOT_A_CHAIN, llm)
    reasons = [r for r in llm.requests if r.purpose == "reason"]
    assert len(reasons) == 2  # the paths alone, then the start community with them
    assert "Frisia" in reasons[1].messages[-1].content and result.answer == "Frisia"
    assert "path" not in result.extra
    default = engine(FastToGConfig()).run(NOT_A_CHAIN, reasoning("{Frisia}"))
    assert default.answer == "Frisia" and default.llm_calls == 1  # off: read together
