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
from kgcore.llm.answers import contains_answer, normalize_answer
from kgcore.llm.parsing import parse_answer

__all__ = ["drop_topic_answer", "grounded_answer", "parse_graph_answer", "topic_names"]

#: Names read from one answer at most (a reply listing hundreds is not an answer either).
MAX_ANSWER_NAMES = 32


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


def _answer_names(answer: str) -> list[str]:
    """The names of an answer: split on ``;`` (as the prompts ask), each kept whole."""
    return [name.strip() for name in answer.split(";") if name.strip()][:MAX_ANSWER_NAMES]


def grounded_answer(answer: str | None, facts: str, topics: Sequence[str] = ()) -> str | None:
    """The names of ``answer`` that the facts shown to the model contain, or ``None``.

    A name counts when its :func:`~kgcore.llm.answers.normalize_answer` form occurs in the
    facts on word boundaries. A ``;``-separated part that is not in the facts is tried again
    split on commas (models list names with commas too), so a title with a comma stays whole
    when the facts hold it. Topic entities are dropped; duplicates are kept once, in order.

    Methods that tell the model to answer *from the facts* use it to refuse a reply naming
    things the facts do not hold (a small model's guess): the method then reads on, as for
    ``Unknown``.

    Example
    -------
    >>> facts = "Love, Wedding, Marriage directed by Dermot Mulroney. Wake release year 2009."
    >>> grounded_answer("Dermot Mulroney; English", facts)
    'Dermot Mulroney'
    >>> grounded_answer("Love, Wedding, Marriage", facts)
    'Love, Wedding, Marriage'
    >>> grounded_answer("English, 2009", facts)
    '2009'
    >>> grounded_answer("English", facts) is None
    True
    """
    if answer is None:
        return None
    topic_forms = {normalize_answer(t) for t in topics}
    kept: dict[str, str] = {}
    for part in _answer_names(answer):
        pieces = [part]
        if not contains_answer(facts, part):
            pieces = [piece.strip() for piece in part.split(",") if piece.strip()]
        for piece in pieces:
            form = normalize_answer(piece)
            if form not in topic_forms and contains_answer(facts, piece):
                kept.setdefault(form, piece)
    return "; ".join(kept.values()) or None


def parse_graph_answer(text: str) -> str | None:
    """:func:`~kgcore.llm.parsing.parse_answer`, refusing the prompt's ``{answer}`` placeholder.

    Example
    -------
    >>> parse_graph_answer("{Cobra}"), parse_graph_answer("{answer}")
    ('Cobra', None)
    """
    answer = parse_answer(text)
    return None if answer is None or answer.strip().lower() == "answer" else answer
