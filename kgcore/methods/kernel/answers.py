"""What counts as an answer, the same for every method: never a topic entity of the question,
never the prompt's ``{answer}`` placeholder.

Example
-------
>>> topic_names("who directed [Giant]", ["Shane"])
['Shane', 'Giant']
>>> drop_topic_answer("the Giant", ["Giant"]) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.linking import bracketed_entities
from kgcore.llm.answers import normalize_answer
from kgcore.llm.parsing import parse_answer

__all__ = ["drop_topic_answer", "parse_graph_answer", "topic_names"]


def topic_names(question: str, topic_entities: Sequence[str] | None = None) -> list[str]:
    """The question's topic entities: those given, and those written in brackets."""
    return list(dict.fromkeys([*(topic_entities or ()), *bracketed_entities(question)]))


def drop_topic_answer(answer: str | None, topics: Sequence[str]) -> str | None:
    """``None`` when ``answer`` is one of the question's topic entities (not an answer).

    Compared after :func:`~kgcore.llm.answers.normalize_answer`; every method applies
    it, so "The Tale of Despereaux" is no answer to a question about [The Tale of Despereaux].

    >>> drop_topic_answer("the Giant", ["Giant"]) is None, drop_topic_answer("Shane", ["Giant"])
    (True, 'Shane')
    """
    if answer is None:
        return None
    forms = {normalize_answer(t) for t in topics}
    return None if normalize_answer(answer) in forms else answer


def parse_graph_answer(text: str) -> str | None:
    """:func:`~kgcore.llm.parsing.parse_answer`, refusing the prompt's ``{answer}`` placeholder.

    Example
    -------
    >>> parse_graph_answer("{Cobra}"), parse_graph_answer("{answer}")
    ('Cobra', None)
    """
    answer = parse_answer(text)
    return None if answer is None or answer.strip().lower() == "answer" else answer
