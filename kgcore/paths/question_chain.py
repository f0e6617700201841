"""The relation phrases of a question asked as a chain of possessives and "of"s.

"what is the nation of spouse of Eugene 's dad ?" asks, from Eugene, for the dad, then the
dad's spouse, then the spouse's nation: English writes the chain outwards from the entity with
``'s`` ("Eugene's dad's spouse") and inwards with ``of`` ("the nation of the spouse of").
:func:`chain_phrases` reads that order, so a relation path can be scored hop by hop against the
phrase asked at that hop (:mod:`kgcore.paths.ranking`). A question that is not
such a chain (fewer than two phrases) gives ``[]``.

An "of" inside a relation name ("cause of death") reads like a link of the chain, so
:func:`chain_readings` gives every way to read the phrases as a chain of a given length.

Example
-------
>>> chain_phrases("what is the nation of spouse of Eugene 's dad ?", ["Eugene"])
['dad', 'spouse', 'nation']
>>> chain_phrases("where was Obama's wife's dad born", ["Obama"])
[]
>>> chain_readings("the cause of death of Maria 's mom ?", ["Maria"], 2)
[['mom', 'cause of death']]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: How a question opens before the first relation phrase ("what is the", "who was").
_OPENING = re.compile(
    r"^\s*(?:(?:what|who|which|whom)\s+(?:is|are|was|were)\s+)?(?:the\s+)?"
    r"(?:name\s+of\s+(?:the\s+)?)?",
    re.IGNORECASE,
)
#: A question opening with "where" or "when" asks for a place or a time that no phrase names.
_PLACE_OR_TIME = re.compile(r"^\s*(?:where|when)\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"\s*(?:'s|’s|')\s+", re.IGNORECASE)
_OF = re.compile(r"\s+of\s+(?:the\s+|a\s+|an\s+)?", re.IGNORECASE)
_TRAILING = re.compile(r"[\s?.!,;:]+$")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
#: Phrases longer than this many words are sentences, not relation names.
MAX_PHRASE_WORDS = 4


def _clean(phrase: str) -> str:
    return _ARTICLE.sub("", _TRAILING.sub("", phrase.strip(" []"))).strip()


def _chain(question: str, topic: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """``(outward, inward)``: the possessive phrases after the entity, in order, and the "of"
    phrases before it, in the question's order (the outermost first); ``None`` when the
    question is no such chain."""
    text = question.replace("[", "").replace("]", "")
    lowered = text.lower()
    for entity in sorted(topic, key=len, reverse=True):
        at = lowered.find(entity.lower())
        if at >= 0:
            break
    else:
        return None
    before, after = text[:at], text[at + len(entity) :]
    if _PLACE_OR_TIME.match(before):
        return None  # "where was X's child's spouse born": the last relation is not a phrase
    outward = [_clean(p) for p in _POSSESSIVE.split(after)[1:]] if _POSSESSIVE.match(after) else []
    if not outward and _TRAILING.sub("", after).strip():
        return None  # words after the entity that are not possessives: not a chain
    if outward and outward[-1].lower() == "name":
        outward.pop()  # "X's wife's name" asks for the wife
    opening = _OPENING.match(before)
    inward_text = before[opening.end() :] if opening else before
    inward: list[str] = []
    if inward_text.strip():
        if not re.search(r"\bof\s*$", inward_text, re.IGNORECASE):
            return None
        inward = [_clean(p) for p in _OF.split(" " + inward_text.rstrip() + " ") if _clean(p)]
        if inward and inward[0].lower() in ("name", "names"):
            inward.pop(0)  # "the names of X's children" asks for the children
    phrases = [*outward, *inward]
    if any(not p or len(p.split()) > MAX_PHRASE_WORDS for p in phrases):
        return None
    return [p for p in outward if p], inward


def chain_phrases(question: str, topic: Sequence[str]) -> list[str]:
    """The relation phrases of ``question``, from the topic entity outwards, each "of" read
    as a link; ``[]`` unless the question is a chain of at least two (see the module
    docstring).

    >>> chain_phrases("the cause of death of Maria 's daughter 's mom ?", ["Maria"])
    ['daughter', 'mom', 'death', 'cause']
    """
    chain = _chain(question, topic)
    if chain is None:
        return []
    phrases = [*chain[0], *reversed(chain[1])]
    return phrases if len(phrases) >= 2 else []


def chain_readings(question: str, topic: Sequence[str], hops: int) -> list[list[str]]:
    """Every reading of ``question`` as a chain of ``hops`` relation phrases, from the topic
    entity outwards: consecutive "of" phrases may be one relation name ("cause of death").
    ``[]`` when the question is no chain of at least two phrases, or none has ``hops``.

    >>> chain_readings("what is the cause of death of mother of Ann 's son ?", ["Ann"], 3)
    [['son', 'death of mother', 'cause'], ['son', 'mother', 'cause of death']]
    """
    chain = _chain(question, topic)
    if chain is None or len(chain[0]) + len(chain[1]) < 2:
        return []
    outward, inward = chain
    wanted = hops - len(outward)
    readings: list[list[str]] = []
    for groups in _groupings(inward, wanted):
        readings.append([*outward, *reversed(groups)])
    return readings


def _groupings(parts: list[str], count: int) -> list[list[str]]:
    """Ways to join consecutive ``parts`` with " of " into ``count`` phrases (the fewest
    joins first)."""
    if count == len(parts):
        return [list(parts)]
    if count <= 0 or count > len(parts):
        return [] if parts or count else [[]]
    ways: list[list[str]] = []
    for size in range(1, len(parts) - count + 2):
        head = " of ".join(parts[:size])
        ways += [[head, *rest] for rest in _groupings(parts[size:], count - 1)]
    return sorted(ways, key=lambda way: max(len(p.split(" of ")) for p in way))


#: Words either side of the topic entity that say how the question leaves it.
NEAR_WORDS = (3, 2)
#: Words at the question's start and end that say what it asks for.
FOCUS_WORDS = (4, 3)
_TOKEN = re.compile(r"[^\s?.!,;:]+")


def question_ends(question: str, topic: Sequence[str]) -> tuple[str, str] | None:
    """``(near, focus)``: the words around the topic entity, which say how a path leaves it
    ("the writer of [X]", "[X] actors"), and the words at the question's start and end,
    which say what it asks for ("who are the directors", "were released in which years");
    ``None`` when no topic entity is named in the question.

    >>> question_ends("who are the directors of the films written by the writer of [Heat]",
    ...               ["Heat"])
    ('by the writer of', 'who are the directors')
    >>> question_ends("the films directed by the director of [Heat] starred who", ["Heat"])
    ('by the director of starred who', 'the films directed')
    """
    text = question.replace("[", "").replace("]", "")
    lowered = text.lower()
    for entity in sorted(topic, key=len, reverse=True):
        at = lowered.find(entity.lower()) if entity else -1
        if at >= 0:
            break
    else:
        return None
    before = _TOKEN.findall(text[:at])
    after = _TOKEN.findall(text[at + len(entity) :])
    near_before, near_after = NEAR_WORDS
    near = before[-near_before - 1 :] + after[:near_after] if before else after[: near_after + 1]
    rest_before = before[: max(len(before) - near_before - 1, 0)]
    rest_after = after[near_after:]
    first, last = FOCUS_WORDS
    focus = rest_before[:first] + rest_after[-last:] if rest_after else rest_before[:first]
    if not focus:
        focus = (before + after)[:first]
    return " ".join(near), " ".join(focus)
