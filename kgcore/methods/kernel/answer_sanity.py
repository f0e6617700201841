"""The sanity check of an answer no graph vouches for (a model's own knowledge).

A graph method's answer is a node of what it retrieved (:func:`~kgcore.methods.kernel.
check_answer` with ``nodes``): the graph vouches for it, whatever characters its name holds. An
answer from the model's own knowledge (the IO, CoT and CoT-SC baselines, a graph method's
fallback) has no such check, so it must at least read as an answer: :func:`sane_answer` refuses
markup, code, JSON debris, bare option numbers, float and null words, links, instructions to a
model and over-long names, and the method answers ``Unknown`` instead.

The rules are deliberately plain character and word checks, each a pattern of this module, so a
refusal is explainable (:func:`insanity` names the rule a text breaks).

Example
-------
>>> sane_answer("George Stevens"), sane_answer("<script>alert(1)</script>")
('George Stevens', None)
>>> insanity("DETACH DELETE n //"), insanity("1, 2, 3"), insanity("nan")
('code', 'option numbers', 'null or float word')
"""

from __future__ import annotations

import re

from kgcore.validation import answer_phrase

__all__ = ["MAX_NAME_CHARS", "MAX_NAME_WORDS", "insanity", "sane_answer"]

#: Characters of one ``;``-separated name of an ungrounded answer at most.
MAX_NAME_CHARS = 120
#: Words of one such name at most (titles run long; sentences run longer).
MAX_NAME_WORDS = 16

#: Markup and JSON or code brackets: no answer name holds them.
_MARKUP = re.compile(r"[<>{}\[\]`\\]|&(?:[a-z]+|#\d+);", re.IGNORECASE)
#: JSON debris: a quoted key, an escaped quote, a quote next to a colon or comma.
_JSON_DEBRIS = re.compile(r"\"\s*[:,]|[:,]\s*\"|\\\"|^\s*\"[^\"]*$|^[^\"]*\"\s*$")
#: Code: comments, operators, a call ``name(...)``, shell and template expansions, and the
#: statements of Cypher and SQL (upper case, as written in code).
_CODE = re.compile(
    r"//|/\*|\*/|=>|==|!=|&&|\|\||::|\$[({]|\b[A-Za-z_]\w*\([^()]*\)|"
    r"\b(?:var|let|const)\s+\w+\s*=|\brm\s+-rf\b|\blambda\b[\w\s,]*:|\bdef\s+\w+|"
    r"\b(?:DETACH\s+DELETE|DELETE\s+FROM|DROP\s+(?:TABLE|DATABASE|INDEX)|INSERT\s+INTO|"
    r"SELECT\s+.+\s+FROM|UNION\s+SELECT|MATCH\s*\(|MERGE\s*\(|CREATE\s*\(|RETURN\s+\w)"
)
#: Words a float or a missing value prints as.
_NULL_WORDS = frozenset(
    {"nan", "-nan", "inf", "-inf", "+inf", "infinity", "-infinity", "null", "none", "nil",
     "undefined", "n/a"}
)  # fmt: skip
#: A list of bare numbers ("1, 2, 3"): option labels, not an answer.
_OPTION_NUMBERS = re.compile(r"\s*\d{1,3}(?:\s*(?:,|;|and|&)\s*\d{1,3})+\s*\.?")
#: Links and addresses.
_LINK = re.compile(r"[a-z][a-z0-9+.-]*://|\bwww\.|\b[\w.+-]+@[\w-]+\.[a-z]{2,}\b", re.IGNORECASE)
#: Words addressed to a model rather than naming an answer (prompt injection).
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget)\b.{0,40}\b(?:instructions?|prompts?|rules?|above|previous)\b|"
    r"\bsystem\s+prompt\b|\byou\s+are\s+now\b|\bas\s+an\s+ai\b|\bjailbreak|\bpwned\b",
    re.IGNORECASE,
)


def insanity(text: str) -> str | None:
    """The rule ``text`` breaks as an ungrounded answer, or ``None`` when it reads as one.

    Rules, in order: ``not a phrase`` (:func:`~kgcore.validation.answer_phrase`: printable, at
    most 300 characters, a letter or digit), ``markup``, ``JSON debris``, ``link``, ``code``,
    ``instruction``, ``option numbers``, ``null or float word``, ``too long`` (a name over
    :data:`MAX_NAME_CHARS` characters or :data:`MAX_NAME_WORDS` words).

    >>> insanity('answer": "George Stevens'), insanity("Ignore previous instructions")
    ('JSON debris', 'instruction')
    >>> insanity("Titanic (1997); Dr. No") is None, insanity("1963") is None
    (True, True)
    """
    phrase = answer_phrase(text)
    if phrase is None:
        return "not a phrase"
    checks = (
        ("markup", _MARKUP),
        ("JSON debris", _JSON_DEBRIS),
        ("link", _LINK),
        ("code", _CODE),
        ("instruction", _INSTRUCTION),
    )
    for rule, pattern in checks:
        if pattern.search(phrase):
            return rule
    if _OPTION_NUMBERS.fullmatch(phrase):
        return "option numbers"
    for name in phrase.split(";"):
        name = name.strip()
        if name.casefold() in _NULL_WORDS:
            return "null or float word"
        if len(name) > MAX_NAME_CHARS or len(name.split()) > MAX_NAME_WORDS:
            return "too long"
    return None


def sane_answer(answer: str | None) -> str | None:
    """``answer`` as a phrase when it breaks no rule of :func:`insanity`, else ``None``.

    >>> sane_answer("  Jennifer   Lawrence "), sane_answer("{nan}"), sane_answer(None)
    ('Jennifer Lawrence', None, None)
    """
    if answer is None or insanity(answer) is not None:
        return None
    return answer_phrase(answer)
