"""The documented limits on questions and topic entities cover bracketed names and control
characters (issue 37, item 6): seventeen bracketed entities, a 201-character bracketed name or a
name holding ESC, BEL, U+0085 or U+2028 is an :class:`InvalidQuestionError`, from the check and
from every method's run."""

from __future__ import annotations

import pytest

from kgcore.exceptions import InvalidQuestionError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.tog import ToG
from kgcore.validation import (
    MAX_NAME_CHARS,
    MAX_TOPIC_ENTITIES,
    check_question,
    check_topic_entities,
    name_problem,
)

BAD_NAMES = ["a\x1bb", "a\x07b", "a\x85b", "a\u2028b", "a\u2029b", "a\x00b", "a\tb", "x" * 201]


@pytest.mark.parametrize(
    "question",
    [
        " ".join(f"[e{i}]" for i in range(MAX_TOPIC_ENTITIES + 1)),
        "who is [" + "x" * (MAX_NAME_CHARS + 1) + "]",
        *(f"who directed [{name}]" for name in BAD_NAMES),
    ],
    ids=lambda q: repr(q[:30]),
)
def test_a_question_over_the_bracketed_limits_is_refused(question: str) -> None:
    with pytest.raises(InvalidQuestionError):
        check_question(question)
    # ... and so by a method's run, before any model call
    llm = ScriptedLLM(["{Paris}"])
    with pytest.raises(InvalidQuestionError):
        PromptBaseline("io").run(question, llm)
    assert llm.requests == []


@pytest.mark.parametrize("name", BAD_NAMES, ids=repr)
def test_a_topic_entity_with_a_control_character_is_refused(name: str) -> None:
    with pytest.raises(InvalidQuestionError):
        check_topic_entities([name])
    store = InMemoryGraphStore.from_triples([("Heat", "directed_by", "Michael Mann")])
    with pytest.raises(InvalidQuestionError):
        ToG(store).run("who directed it", ScriptedLLM([]), topic_entities=[name])


def test_the_limits_themselves_are_accepted() -> None:
    sixteen = " ".join(f"[e{i}]" for i in range(MAX_TOPIC_ENTITIES))
    assert check_question(sixteen) == sixteen
    assert check_question(f"[e1] [e1] {sixteen}")  # a repeated name counts once
    longest = "who is [" + "x" * MAX_NAME_CHARS + "]"
    assert check_question(longest) == longest
    assert check_question("who is [Amélie]\nand [Jean\u00adPierre]?")  # line breaks are text
    assert name_problem("Jean\u00adPierre") is None


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("a\x1bb", "control character U+001B"),
        ("a\x85b", "control character U+0085"),
        ("a\u2028b", "line separator U+2028"),
        ("\ud800", "lone surrogate U+D800"),
        ("  ", "is empty"),
        (None, "must be a string"),
    ],
)
def test_name_problem_says_what_is_wrong(name: object, problem: str) -> None:
    assert problem in (name_problem(name) or "")
