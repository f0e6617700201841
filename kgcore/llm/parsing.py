"""Robust parsing of LLM replies: choices, answers and entity lists.

Small local models rarely reply in exactly the asked format. These parsers accept the valid
part of a reply (letters in braces, JSON lists, ``Answer: A, C``, chatter around them) and say
``None`` only when nothing usable is there, so the caller can ask once more.

A reply is untrusted input. Every parser is total: it returns a value or "unparseable"
(``None``), never raises, whatever the text (deeply nested brackets, 100 kB, control
characters, special tokens). Each reads at most :data:`PARSE_CHARS` characters and takes at
most :data:`~kgcore.validation.MAX_REPLY_NAMES` names, and an answer must be a short printable
phrase (:func:`~kgcore.validation.answer_phrase`), else it counts as unknown.

Example
-------
>>> parse_choices("I think {B, D} are relevant.", n_options=4, max_choices=3)
[1, 3]
>>> parse_choices("None of them.", n_options=4, max_choices=1)
[]
>>> parse_answer("Answer: {Joseph L. Mankiewicz}")
'Joseph L. Mankiewicz'
>>> parse_answer("{Unknown}") is None
True
"""

from __future__ import annotations

import json
import re
import string

from kgcore.exceptions import ConfigurationError
from kgcore.validation import (
    MAX_ANSWER_CHARS,
    MAX_REPLY_NAMES,
    MIN_REPLY_CAP_CHARS,
    answer_phrase,
    cap_names,
    join_answers,
)

#: The most characters of one reply any parser reads (the drivers already cut replies to
#: :func:`kgcore.llm.protocol.reply_char_cap`; this also bounds direct calls).
PARSE_CHARS = 8 * MIN_REPLY_CAP_CHARS

NONE_WORDS = re.compile(r"\b(none|no option|no community|nothing|neither)\b", re.IGNORECASE)
_BRACES = re.compile(r"\{([^{}]*)\}")
#: A list answer cut off inside its braces (the reply cap ended it): the names before its last
#: ``;`` are whole, the one after it may not be.
_CUT_BRACES = re.compile(r"\{([^{}]*);[^{};]*$")
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_LETTER = re.compile(r"(?<![A-Za-z'’])([A-Z])(?![A-Za-z'’])")
_NUMBER = re.compile(r"(?<![\d.,])(\d{1,2})(?![\d,]\d|\d)")
_ANSWER_LINE = re.compile(r"(?:final\s+)?answer\s*(?:is)?\s*[:：]\s*(.+)", re.IGNORECASE)
UNKNOWN_WORDS = {"unknown", "none", "n/a", "not sure", "cannot answer", "insufficient", "no answer"}


def _letters(text: str, n_options: int) -> list[int]:
    valid = set(string.ascii_uppercase[:n_options])
    picked: list[int] = []
    for letter in _LETTER.findall(text):
        if letter in valid:
            index = ord(letter) - ord("A")
            if index not in picked:
                picked.append(index)
    return picked


def _numbers(text: str, n_options: int) -> list[int]:
    picked: list[int] = []
    for number in _NUMBER.findall(text):
        index = int(number) - 1
        if 0 <= index < n_options and index not in picked:
            picked.append(index)
    return picked


def parse_choices(
    text: str, n_options: int, max_choices: int, labels: str = "letters"
) -> list[int] | None:
    """Option indexes (0-based, in reply order) chosen in ``text``.

    ``labels`` says how options were labelled: ``"letters"`` (A, B, ...) or ``"numbers"``
    (1, 2, ...). Returns ``[]`` when the reply says none fits, and ``None`` when nothing usable
    was found. Labels outside the options are ignored; at most ``max_choices`` are kept.

    >>> parse_choices("{2, 5, 6}", n_options=5, max_choices=3, labels="numbers")
    [1, 4]
    """
    if labels not in ("letters", "numbers"):
        raise ConfigurationError("labels must be 'letters' or 'numbers'")
    if n_options <= 0:
        return []
    if not isinstance(text, str):
        return None
    text = text[:PARSE_CHARS]
    find = _letters if labels == "letters" else _numbers
    for pattern in (_BRACES, _BRACKETS):
        groups = pattern.findall(text)
        for group in groups:
            picked = find(group.replace('"', " ").replace("'", " "), n_options)
            if picked:
                return picked[:max_choices]
        if any(NONE_WORDS.search(g) or not g.strip() for g in groups):
            return []
    answer = _ANSWER_LINE.search(text)
    scope = answer.group(1) if answer else text
    picked = find(scope, n_options)
    if labels == "numbers" and not answer:
        # Numbers in prose ("the 3 groups") are not choices: trust only a list-like reply.
        if not re.fullmatch(
            r"[\s(]*\d{1,2}[).:]?(\s*(,|and|&|/)\s*\d{1,2}[).]?)*[\s.]*", text.strip()
        ):
            picked = []
    elif not answer:
        # A bare "A" in prose may be the article: only trust it when the reply is short or
        # uses letters list-style ("A, C" / "A and C" / "Option A").
        stripped = text.strip()
        listish = re.fullmatch(r"[\s(]*[A-Z][).:]?(\s*(,|and|&|/)\s*[A-Z][).]?)*[\s.]*", stripped)
        if not listish and not re.search(r"\b(option|choice|community)\s+[A-Z]\b", text, re.I):
            picked = [p for p in picked if string.ascii_uppercase[p] != "A"] or (
                picked if len(stripped) <= 12 else []
            )
    if picked:
        return picked[:max_choices]
    if NONE_WORDS.search(text):
        return []
    return None


def _clean_answer(value: str) -> str:
    value = value.strip().strip("{}[]\"'`*").strip()
    # a parenthesis at either end goes only when it is unmatched: "Titanic (1997)" stays
    if value.startswith("(") and value.count("(") > value.count(")"):
        value = value[1:].strip()
    if value.endswith(")") and value.count(")") > value.count("("):
        value = value[:-1].strip()
    if value.startswith("(") and value.endswith(")") and value.count("(") == 1:
        value = value[1:-1].strip()  # "(Paris)": a name in parentheses
    value = value.strip("{}[]\"'`*").strip()
    value = re.sub(r"^(answer\s*[:：]\s*)", "", value, flags=re.IGNORECASE).strip()
    return value.rstrip(".").strip()


def is_unknown(value: str) -> bool:
    """Whether an answer string means the model could not answer (or is no phrase at all)."""
    if answer_phrase(value) is None:
        return True
    lowered = value.strip().strip("{}.").strip().lower()
    return not lowered or lowered in UNKNOWN_WORDS or lowered.startswith("unknown")


#: Keys of a JSON object reply that hold its answer, in order of preference (compared in lower
#: case, with spaces and hyphens as underscores).
ANSWER_KEYS = (
    "answer",
    "answers",
    "final_answer",
    "finalanswer",
    "result",
    "results",
    "entity",
    "entities",
    "name",
    "names",
    "output",
)
#: A ``key: value`` pair in braces that is not valid JSON (``{'answer': 'X'}``, ``{answer: X}``).
_KEY_VALUE = re.compile(r"""\s*["']?([A-Za-z][A-Za-z _-]{0,20})["']?\s*[:=]\s*(.*)""", re.DOTALL)
#: Nesting read in a JSON answer at most (``{"answer": {"name": ...}}``).
_JSON_DEPTH = 3


def _answer_key(key: object) -> str:
    return re.sub(r"[\s-]+", "_", str(key).strip().lower())


def _json_value_text(value: object, depth: int = 0) -> str | None:
    """A JSON value as answer text: a string, a finite number, a list of them (``;``-joined),
    or the answer held by a nested object; ``None`` for anything else (``null``, booleans,
    ``NaN``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        return str(int(value)) if value.is_integer() else str(value)
    if isinstance(value, list):
        parts = [_json_value_text(v, depth + 1) for v in value[:MAX_REPLY_NAMES]]
        return "; ".join(p.strip() for p in parts if p and p.strip()) or None
    if isinstance(value, dict) and depth < _JSON_DEPTH:
        return _object_answer(value, depth + 1)
    return None


def _object_answer(obj: dict[object, object], depth: int = 0) -> str | None:
    """The answer a JSON object holds: under the first of :data:`ANSWER_KEYS` it has, else its
    only value; ``None`` when it holds none."""
    keyed = {_answer_key(k): v for k, v in list(obj.items())[:64]}
    for key in ANSWER_KEYS:
        if key in keyed:
            return _json_value_text(keyed[key], depth)
    if len(keyed) == 1:
        return _json_value_text(next(iter(keyed.values())), depth)
    return None


def _json_object(span: str) -> dict[object, object] | None:
    """``span`` parsed as a JSON object, or ``None`` (invalid, not an object, too deep)."""
    try:
        value = json.loads(span)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def json_answer(text: str) -> tuple[bool, str | None]:
    """``(found, answer)``: whether ``text`` holds a JSON object reply, and the answer in it.

    The object is the text from its first ``{`` to its last ``}``, else the last braced group
    that parses as one (``{"answer": "X"}`` inside chatter); its answer is the value of the
    first of :data:`ANSWER_KEYS` it has, else its only value, a list joined with ``;``.
    Without valid JSON, a braced ``key: value`` pair with one of :data:`ANSWER_KEYS` counts
    too (``{'answer': 'X'}``). ``(False, None)`` when the text holds no such object: it is read
    the usual way.

    >>> json_answer('{"answer": "George Stevens"}'), json_answer('{"answers": ["A", "B"]}')
    ((True, 'George Stevens'), (True, 'A; B'))
    >>> json_answer("{'answer': 'George Stevens'}"), json_answer("{George Stevens}")
    ((True, 'George Stevens'), (False, None))
    """
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return False, None
    keyed = text[start + 1 : end].lstrip()[:1] == '"'  # a JSON object starts with a key
    whole = _json_object(text[start : end + 1]) if keyed else None
    if whole is not None:
        return True, _object_answer(whole)
    for group in reversed(_BRACES.findall(text)):
        body = group.strip()
        if body[:1] == '"':
            obj = _json_object("{" + body + "}")
            if obj is not None:
                return True, _object_answer(obj)
        pair = _KEY_VALUE.fullmatch(body)
        if pair and _answer_key(pair.group(1)) in ANSWER_KEYS:
            value = pair.group(2).strip().rstrip(",").strip().strip("\"'")
            return True, value
    return False, None


def _phrase(value: str | None) -> str | None:
    """A parsed value cleaned of quotes, brackets and ``Answer:``, as a phrase, or ``None``.

    A ``;``-separated list longer than :data:`~kgcore.validation.MAX_ANSWER_CHARS` keeps the
    whole names that fit, in order (a long list answer is still an answer).

    >>> films = "; ".join(f"Film {i:03d}" for i in range(100))
    >>> kept = _phrase(films)
    >>> kept.split("; ")[:2], len(kept) <= 300, kept.split("; ")[-1]
    (['Film 000', 'Film 001'], True, 'Film 029')
    """
    if value is None:
        return None
    value = _clean_answer(value)
    if len(value) > MAX_ANSWER_CHARS and ";" in value:
        value = join_answers([name for n in value.split(";") if (name := n.strip())])
    return answer_phrase(value)


def has_braced_answer(text: str) -> bool:
    """Whether a reply gives an answer in braces: filled braces, or a list cut off inside them
    with at least one whole name (see :func:`parse_answer_text`).

    >>> has_braced_answer("Answer: {A}"), has_braced_answer("Answer: {A; B; C")
    (True, True)
    >>> has_braced_answer("Answer: {A"), has_braced_answer("{ }")
    (False, False)
    """
    return any(g.strip() for g in _BRACES.findall(text)) or bool(_CUT_BRACES.search(text))


def parse_answer_text(text: str) -> str | None:
    """The answer a reasoning reply writes, as written: :func:`parse_answer` without its last
    step, so ``{Unknown}``, ``{None}`` or ``{N/A}`` give ``Unknown``, ``None`` or ``N/A``.

    A graph method reads it so a node of one of those names can be its answer (the node it
    names among the nodes it showed the model, and only that node); for anything else such a
    word means the model could not answer (:func:`is_unknown`).

    >>> parse_answer_text("{None}"), parse_answer("{None}")
    ('None', None)
    >>> parse_answer_text("no braces\\nat all") is None
    True

    A reply that the reply cap ends inside its braces gives the whole names before the cut:

    >>> parse_answer_text("Steps: ... Answer: {Shane; Giant; The Big Sl")
    'Shane; Giant'
    """
    if not isinstance(text, str):
        return None
    text = text[:PARSE_CHARS]
    found, value = json_answer(text)
    if found:
        return _phrase(value)
    braces = [g for g in _BRACES.findall(text) if g.strip()]
    if braces:
        return _phrase(braces[-1])
    cut = _CUT_BRACES.search(text)
    if cut:
        return _phrase(cut.group(1))
    line = _ANSWER_LINE.search(text)
    if line:
        return _phrase(line.group(1).splitlines()[0])
    stripped = text.strip()
    if stripped and "\n" not in stripped and len(stripped) <= 200:
        return _phrase(stripped)
    return None


def parse_answer(text: str) -> str | None:
    """The answer in a reasoning reply, or ``None`` when the model says it is unknown.

    A JSON object reply is read as JSON (:func:`json_answer`: ``{"answer": "X"}`` gives
    ``X``); otherwise braces win (``{answer}``), then an ``Answer:`` line, then a one-line
    reply. An answer that is not a short printable phrase
    (:func:`~kgcore.validation.answer_phrase`) counts as unknown, so the method falls back as
    it does for ``{Unknown}`` (:func:`parse_answer_text` keeps such words).

    >>> parse_answer("{<|im_end|>}") is None, parse_answer("{" + "x" * 5000 + "}") is None
    (True, True)
    >>> parse_answer('So: {"answer": "George Stevens"}'), parse_answer('{"answer": null}')
    ('George Stevens', None)
    """
    value = parse_answer_text(text)
    return None if value is None or is_unknown(value) else value


def _json_list(text: str) -> list[object] | None:
    """The JSON list from the first ``[`` to the last ``]``, or ``None``.

    ``str.find``/``rfind`` instead of a ``\\[.*\\]`` search, which backtracks quadratically on
    a reply of unclosed brackets; a nesting deeper than the recursion limit is unparseable.
    """
    start, end = text.find("["), text.rfind("]")
    if start < 0 or end <= start:
        return None
    try:
        items = json.loads(text[start : end + 1])
    except (ValueError, RecursionError):
        return None
    return items if isinstance(items, list) else None


def parse_entities(text: str) -> list[str]:
    """Entity names listed in a reply: a JSON list, braces, or one per line or comma.

    At most :data:`~kgcore.validation.MAX_REPLY_NAMES` distinct names, each at most
    :data:`~kgcore.validation.MAX_NAME_CHARS` characters (longer ones are dropped).

    >>> parse_entities('["Titanic", "James Cameron"]')
    ['Titanic', 'James Cameron']
    >>> parse_entities("[" * 5000)
    []
    """
    if not isinstance(text, str):
        return []
    text = text[:PARSE_CHARS].strip()
    items = _json_list(text)
    if items is not None:
        return cap_names(i for i in items if isinstance(i, (str, int, float)))
    braces = _BRACES.findall(text)
    body = ",".join(braces) if braces else text
    parts = re.split(r"[,\n;]|\s\|\s", body)

    def cleaned(part: str) -> str:
        part = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", part)
        part = re.sub(r"^(entities|entity)\s*[:：]\s*", "", part, flags=re.IGNORECASE)
        return part.strip().strip("\"'`{}[]").strip()

    # A generator: cap_names stops reading once it holds enough names.
    return cap_names(cleaned(part) for part in parts)
