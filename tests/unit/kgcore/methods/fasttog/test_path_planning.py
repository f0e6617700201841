"""FastToG's path planning: relation paths the graph holds, followed, read by the model.

The best paths join the facts of the reasoning step, and the path that reaches the answer the
model names gives the answer set; a question read as a chain of relation phrases is answered
by its aligned path with no call when it reaches between 1 and ``MAX_ANSWERS`` nodes, else the
model reads that path alone first.
"""

from __future__ import annotations

import pytest

import kgcore.methods.fasttog.path_planning as planning
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.paths import PathSettings
from tests.support.path_graphs import FAMILY

THREE_HOPS = "what is the birthplace of the spouse of [Ann] 's child ?"
#: Not read as a chain: its paths join the start community, and the model reads them.
NOT_A_CHAIN = "birthplace of the person married to the child of [Ann]"


def engine(config: FastToGConfig | None = None) -> FastToG:
    return FastToG(InMemoryGraphStore.from_triples(FAMILY), config or FastToGConfig())


def reasoning(answer: str) -> ScriptedLLM:
    """A scripted model that answers ``answer`` at every reasoning step (and picks the first
    option of any choice), recording what it was shown."""
    return ScriptedLLM(lambda request: answer if request.purpose == "reason" else "{1}")


@pytest.fixture
def one_answer_chains(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain question's path answers alone only when it reaches one node (so the model reads
    the paths that reach two or more)."""
    monkeypatch.setattr(planning, "MAX_ANSWERS", 1)


def test_a_path_that_reaches_too_many_nodes_joins_the_start_community(
    one_answer_chains: None,
) -> None:
    llm = reasoning("{Unknown}")
    result = engine().run("who are the fellow citizens of [Cid]", llm)
    assert result.start is not None
    path_facts = {("Cid", "citizen of", "Frisia")}
    assert path_facts <= {tuple(t) for t in result.start.triples}
    steps = [s for s in result.extra["steps"] if s["purpose"] == "paths"]
    assert steps and 60 in steps[0]["reached"]  # "citizen of / citizen of of": no answer
    reasons = [r for r in llm.requests if r.purpose == "reason"]
    assert reasons and "Leads to:" in reasons[0].messages[-1].content


def test_path_planning_off_plans_no_path_and_the_paper_preset_has_none() -> None:
    assert not FastToGConfig.paper().paths.enabled
    off = engine(FastToGConfig(paths=PathSettings(max_hops=0)))
    llm = ScriptedLLM(lambda request: "{1}" if request.purpose == "prune" else "{Emden}")
    result = off.run(THREE_HOPS, llm)
    assert "paths" not in [s["purpose"] for s in result.extra["steps"]]
    assert "path" not in result.extra


def test_read_the_followed_paths_and_answer_through_a_compound_node_in_one_call() -> None:
    llm = reasoning("{Emden}")
    result = engine().run(NOT_A_CHAIN, llm)
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


def test_a_shortened_name_is_the_node_it_names_and_gives_that_path_s_set() -> None:
    games = [
        ("Hawks", "championships", "2014 NFC Championship Game"),
        ("Hawks", "championships", "Super Bowl XLVIII"),
        ("Hawks", "home", "Seattle"),
        ("Seattle", "team", "Hawks"),
    ]
    store = InMemoryGraphStore.from_triples(games)
    result = FastToG(store).run(
        "what year did [Hawks] win the championships ?", reasoning("Steps: ... Answer: {2014}")
    )
    # "2014" is the shown node "2014 NFC Championship Game", which the path reaches.
    assert result.answer == "2014 NFC Championship Game; Super Bowl XLVIII"
    assert result.extra["path"]["label"] == "championships"


def test_a_loop_back_answer_counts_an_echo_does_not() -> None:
    question = "what is the recording of recording of [Song] 's recording ?"
    assert engine().run(question, reasoning("{Unknown}")).answer == "Song"  # its path, no call
    # A topic whose only link is its self-loop has no community: the path answers alone.
    solo = engine().run("the recording of [Solo] 's recording ?", reasoning("{Unknown}"))
    assert solo.answer == "Solo" and not solo.fell_back and solo.llm_calls == 0
    # Ann: no path leads back to Ann alone, so naming her is an echo and is refused.
    echo = engine().run(NOT_A_CHAIN, reasoning("{Ann}"))
    assert echo.answer != "Ann" and "path" not in echo.extra


def test_an_answer_no_path_reaches_is_fasttog_s_own() -> None:
    llm = reasoning("{Frisia}")  # a node of the start community, on no offered path
    result = engine().run(NOT_A_CHAIN, llm)
    assert result.answer == "Frisia" and result.llm_calls == 1  # read with the paths
    assert "path" not in result.extra


def test_a_chain_question_is_answered_by_its_aligned_path_with_no_llm_call() -> None:
    llm = reasoning("{Ann}")  # never asked
    result = engine().run(THREE_HOPS, llm)
    assert result.answer == "Emden" and result.llm_calls == 0 and llm.requests == []
    assert result.extra["path"]["label"] == "child / spouse, spouse / birthplace"
    assert [tuple(t) for t in result.chains[0][0].triples][-1] == ("Dee", "birthplace", "Emden")
    sets = engine().run("the birthplace of [Ann] 's child 's parent ?", llm)
    assert sets.answer == "Aurich; Leer" and sets.extra["answers"] == ["Aurich", "Leer"]


def test_a_chain_path_with_too_many_nodes_is_read_alone_by_the_model(
    one_answer_chains: None,
) -> None:
    llm = reasoning("{Leer}")
    engine().run("the birthplace of [Ann] 's child 's parent ?", llm)
    assert llm.requests and llm.requests[0].purpose == "reason"  # two nodes: the model reads
    shown = llm.requests[0].messages[-1].content
    assert "Leads to:" in shown and "Frisia" not in shown  # the path alone, no community


def test_every_answer_of_a_set_has_its_own_facts_in_the_evidence() -> None:
    films = [(f"Film {i}", "starred_actors", "Ann") for i in range(6)]
    directors = [(f"Film {i}", "directed_by", f"Director {i}") for i in range(6)]
    store = InMemoryGraphStore.from_triples(films + directors)
    llm = reasoning("{Director 0}")
    result = FastToG(store).run("which person directed the films acted by [Ann]", llm)
    answers = result.answer.split("; ")
    assert sorted(answers) == [f"Director {i}" for i in range(6)]
    evidence = {tuple(t) for t in result.chains[0][0].triples}
    assert all((f"Film {i}", "directed_by", f"Director {i}") in evidence for i in range(6))
