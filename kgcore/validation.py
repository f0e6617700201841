"""Checks on user input and on model output, shared by every method.

Every limit a user or a model can push against is a named constant here, so the limits table
of ``docs/reliability.md`` and the code agree:

* a question is at most :data:`MAX_QUESTION_CHARS` characters and comes with (or brackets) at
  most :data:`MAX_TOPIC_ENTITIES` topic entities of at most :data:`MAX_NAME_CHARS` characters,
  none holding a control character (:func:`name_problem`);
* at most :data:`MAX_REPLY_NAMES` names are taken from one model reply (longer names dropped);
* an answer is a short printable phrase (:func:`answer_phrase`), otherwise it is ``Unknown``;
  ``Unknown`` is a typed outcome (:data:`UNKNOWN`, an :class:`UnknownAnswer`, told apart by
  :func:`is_unknown_answer`), not a string a node can share: a node named ``Unknown``,
  ``None`` or ``N/A`` is an answer like any other;
* every setting whose cost grows with its value has a documented range
  (:data:`FASTTOG_LIMITS`, :data:`TOG_LIMITS`, :data:`CGPE_LIMITS`, :data:`COT_SC_LIMITS`),
  checked by :func:`check_settings`, and so has a run's cost cap (:data:`BUDGET_LIMITS`).

Example
-------
>>> check_question("  who directed [Cleopatra]? ")
'who directed [Cleopatra]?'
>>> answer_phrase("Joseph L. Mankiewicz"), answer_phrase("<|im_end|>")
('Joseph L. Mankiewicz', None)
>>> cap_names(["Titanic", "x" * 500, "Titanic", "Heat"])
['Titanic', 'Heat']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kgcore.exceptions import InvalidQuestionError, InvalidSettingError

#: Longest question accepted (characters).
MAX_QUESTION_CHARS = 2000
#: Most topic entities a caller may give (or a question may bracket) for one question.
MAX_TOPIC_ENTITIES = 16
#: Longest entity name taken from a caller or a model reply (characters).
MAX_NAME_CHARS = 200
#: Most names taken from one model reply (entities, clues).
MAX_REPLY_NAMES = 8
#: Longest answer kept (characters); a longer one is not a phrase and counts as Unknown.
MAX_ANSWER_CHARS = 300
#: Characters of a model reply read at least; see :func:`kgcore.llm.protocol.reply_char_cap`.
MIN_REPLY_CAP_CHARS = 4000
#: Largest ``max_tokens`` setting of any step.
MAX_TOKENS = 4096


class UnknownAnswer(str):
    """The typed outcome "no answer": a ``str`` that reads ``Unknown`` (so it prints, compares
    and serialises as before), but is told apart from a node *named* ``Unknown`` by its type
    (:func:`is_unknown_answer`). There is one, :data:`UNKNOWN`; copies and pickles stay it.

    >>> UNKNOWN == "Unknown", is_unknown_answer(UNKNOWN), is_unknown_answer("Unknown")
    (True, True, False)
    """

    __slots__ = ()

    def __new__(cls) -> UnknownAnswer:
        return super().__new__(cls, "Unknown")

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_unknown, ())

    def __copy__(self) -> UnknownAnswer:
        return self

    def __deepcopy__(self, memo: Any) -> UnknownAnswer:
        return self


#: The one "no answer" outcome (reads ``Unknown``); a method's result with it says
#: ``answered=False``. A plain string ``"Unknown"`` is an answer (a node of that name).
UNKNOWN = UnknownAnswer()


def _unknown() -> UnknownAnswer:
    return UNKNOWN


def is_unknown_answer(answer: Any) -> bool:
    """Whether ``answer`` is the typed "no answer" (:data:`UNKNOWN`), not a name.

    >>> is_unknown_answer(UNKNOWN), is_unknown_answer("None"), is_unknown_answer(None)
    (True, False, False)
    """
    return isinstance(answer, UnknownAnswer)


# Chat-template and tokenizer control tokens a model may leak into its text (ChatML
# ``<|im_end|>``, Llama ``</s>`` / ``[INST]`` / ``<<SYS>>``, Gemma ``<end_of_turn>``, BERT-style
# ``<pad>``): an answer containing one is a template fault, not a phrase.
_SPECIAL_TOKEN = re.compile(
    r"<\|[^<>|]{0,40}\|>|</?s>|<(?:eos|bos|pad|unk|mask|sep|cls)>|\[/?INST\]|<</?SYS>>"
    r"|<(?:start|end)_of_turn>",
    re.IGNORECASE,
)
# Control, format (bidi overrides, zero-width), surrogate, private-use and unassigned code
# points, and the line/paragraph separators: none belongs in a printable one-line answer.
_BAD_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: The format characters real names hold and an answer may keep: the soft hyphen (U+00AD), the
#: zero-width non-joiner (U+200C) and joiner (U+200D). Every comparison of names drops them
#: (:func:`kgcore.text.answer_forms.normalize_answer`, :func:`kgcore.graph.names.normalize_name`),
#: so a name matches with or without them.
NAME_JOINERS = frozenset({"\u00ad", "\u200c", "\u200d"})
#: What no entity or node name may hold: the C0 and C1 controls (NUL, BEL, TAB, ESC, U+0085 NEL,
#: ...), the line and paragraph separators and lone surrogates (which no UTF-8 file can hold).
#: Format characters (zero-width joiners, soft hyphens) are left: real names use them.
NAME_BAD_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
#: A name written in square brackets in a question (MetaQA style: ``who directed [Heat]``).
BRACKETED = re.compile(r"\[([^\[\]]+)\]")

#: The seed of every sampling step: a non-negative integer numpy accepts.
SEED_RANGE = (0, 2**32 - 1)
#: A sampling temperature.
TEMPERATURE_RANGE = (0.0, 2.0)

#: name -> (minimum, maximum) of FastToG's settings (:class:`FastToGConfig`; the Local
#: Community Search's are ``kgcore.community.lcs.LCS_LIMITS``). The maxima bound the LLM calls
#: (at most ``2*W*D + D + 2``: 172 at the maxima).
FASTTOG_LIMITS: dict[str, tuple[float, float]] = {
    "width": (1, 8),
    "max_depth": (1, 10),
    "max_option_triples": (1, 64),
    "joint_limit": (0, 64),
    "topic_facts": (0, 64),
    "prune_max_tokens": (1, MAX_TOKENS),
    "reason_max_tokens": (1, MAX_TOKENS),
    "prune_temperature": TEMPERATURE_RANGE,
    "reason_temperature": TEMPERATURE_RANGE,
    "seed": SEED_RANGE,
}
#: name -> (minimum, maximum) of ToG's settings.
TOG_LIMITS: dict[str, tuple[float, float]] = {
    "width": (1, 8),
    "max_depth": (1, 8),
    "entity_sample_threshold": (1, 1000),
    "entity_sample_size": (1, 26),
    "max_relations": (1, 1000),
    "max_tokens": (1, MAX_TOKENS),
    "answer_max_tokens": (1, MAX_TOKENS),
    "seed": SEED_RANGE,
}
#: name -> (minimum, maximum) of CGPE's settings.
CGPE_LIMITS: dict[str, tuple[float, float]] = {
    "max_depth": (1, 8),
    "max_branches": (1, 16),
    "match_threshold": (1e-9, 100),
    "max_entities": (1, 1000),
    "max_tokens": (1, MAX_TOKENS),
    "answer_max_tokens": (1, MAX_TOKENS),
    "seed": SEED_RANGE,
}
#: name -> (minimum, maximum) of CoT-SC's settings (``n`` replies, ``n`` calls).
COT_SC_LIMITS: dict[str, tuple[float, float]] = {
    "n": (1, 32),
    "max_tokens": (1, MAX_TOKENS),
    "temperature": TEMPERATURE_RANGE,
    "seed": SEED_RANGE,
}
#: name -> (minimum, maximum) of a run's cost cap (``kgcore.methods.kernel.budget.Budget``).
BUDGET_LIMITS: dict[str, tuple[float, float]] = {
    "max_llm_calls": (1, 100_000),
    "max_prompt_tokens": (1, 10**12),
}


def name_problem(name: Any, max_chars: int | None = MAX_NAME_CHARS) -> str | None:
    """Why ``name`` cannot be an entity or node name, or ``None`` when it can.

    A name is a string with a non-blank character, at most ``max_chars`` long (``None``: no
    limit, as for the nodes of a graph file), without control characters (C0 and C1: NUL, BEL,
    TAB, ESC, U+0085), line or paragraph separators (U+2028, U+2029) or lone surrogates.

    >>> name_problem("Amélie"), name_problem("a\\x1bb"), name_problem(" ")
    (None, 'holds the control character U+001B', 'is empty')
    """
    if not isinstance(name, str):
        return f"must be a string, got {type(name).__name__}"
    if not name.strip():
        return "is empty"
    if max_chars is not None and len(name) > max_chars:
        return f"is {len(name)} characters long; at most {max_chars} are accepted"
    bad = NAME_BAD_CHARS.search(name)
    if bad is not None:
        code = ord(bad.group())
        kind = (
            "line separator"
            if code in (0x2028, 0x2029)
            else "lone surrogate"
            if 0xD800 <= code <= 0xDFFF
            else "control character"
        )
        return f"holds the {kind} U+{code:04X}"
    return None


def check_question(question: Any) -> str:
    """The question stripped of surrounding space.

    Empty or non-string input, a question over :data:`MAX_QUESTION_CHARS`, or one whose
    bracketed names break the topic-entity limits (more than :data:`MAX_TOPIC_ENTITIES`
    distinct names, a name over :data:`MAX_NAME_CHARS` or holding a control character, see
    :func:`name_problem`) is refused with :class:`~kgcore.exceptions.InvalidQuestionError`.

    >>> check_question("x" * 3000)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidQuestionError: question is 3000 characters long; at most 2000 ...
    >>> check_question(" ".join(f"[e{i}]" for i in range(17)))
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidQuestionError: the question brackets 17 entities; at most 16 ...
    """
    if isinstance(question, dict):
        question = question.get("question", question.get("input"))
    if not isinstance(question, str):
        raise InvalidQuestionError(f"question must be a string, got {type(question).__name__}")
    stripped = question.strip()
    if not stripped:
        raise InvalidQuestionError("question is empty")
    if len(stripped) > MAX_QUESTION_CHARS:
        raise InvalidQuestionError(
            f"question is {len(stripped)} characters long; at most {MAX_QUESTION_CHARS} "
            "are accepted"
        )
    bracketed = list(dict.fromkeys(m.strip() for m in BRACKETED.findall(stripped) if m.strip()))
    if len(bracketed) > MAX_TOPIC_ENTITIES:
        raise InvalidQuestionError(
            f"the question brackets {len(bracketed)} entities; at most {MAX_TOPIC_ENTITIES} "
            "are accepted"
        )
    for name in bracketed:
        problem = name_problem(name)
        if problem is not None:
            raise InvalidQuestionError(f"bracketed entity {name[:40]!r} {problem}")
    return stripped


def check_topic_entities(names: Sequence[str] | None) -> list[str] | None:
    """The caller's topic entities, checked: strings, non-empty, within the limits.

    ``None`` or an empty sequence gives ``None`` (the method finds the entities itself).

    >>> check_topic_entities(["Cleopatra"]), check_topic_entities([])
    (['Cleopatra'], None)
    >>> check_topic_entities(["a"] * 17)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidQuestionError: 17 topic entities given; at most 16 are accepted
    """
    if names is None:
        return None
    if isinstance(names, str):
        raise InvalidQuestionError("topic entities must be a list of names, not one string")
    names = list(names)
    if not names:
        return None
    if len(names) > MAX_TOPIC_ENTITIES:
        raise InvalidQuestionError(
            f"{len(names)} topic entities given; at most {MAX_TOPIC_ENTITIES} are accepted"
        )
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise InvalidQuestionError(f"a topic entity must be a non-empty string, got {name!r}")
        problem = name_problem(name)
        if problem is not None:
            raise InvalidQuestionError(f"topic entity {name[:40]!r} {problem}")
    return names


def cap_names(names: Iterable[Any], limit: int = MAX_REPLY_NAMES) -> list[str]:
    """At most ``limit`` distinct names, in order; empty or over-long names are dropped.

    Used on every list of names taken from a model reply, so no later step (linking,
    character matching) costs more than ``limit`` short names.
    """
    kept: list[str] = []
    for name in names:
        text = str(name).strip() if isinstance(name, (str, int, float)) else ""
        if not text or len(text) > MAX_NAME_CHARS or text in kept:
            continue
        kept.append(text)
        if len(kept) >= limit:
            break
    return kept


def answer_phrase(text: Any) -> str | None:
    """``text`` stripped when it is a short printable phrase, else ``None``.

    A phrase has at most :data:`MAX_ANSWER_CHARS` characters, at least one letter or digit,
    no control, format, surrogate or line-separator characters (but the joiners and soft hyphen
    of :data:`NAME_JOINERS`, which real names hold), no U+FFFD and no chat special token such
    as ``<|im_end|>``; runs of spaces (U+2002 en spaces, ...) become one space, and what
    remains must be printable (``str.isprintable``, the joiners aside).

    >>> answer_phrase("  Amélie "), answer_phrase("a\\x00b"), answer_phrase("x" * 301)
    ('Amélie', None, None)
    >>> answer_phrase("Blade\\u2002Runner"), answer_phrase("Bey\\u00adonc\\u00e9")
    ('Blade Runner', 'Bey\\xadoncé')
    >>> answer_phrase("a\\u202eb") is None  # a bidi override is no part of a name
    True
    """
    if not isinstance(text, str):
        return None
    value = text.strip()
    if not value or len(value) > MAX_ANSWER_CHARS or "\ufffd" in value:
        return None
    if any(unicodedata.category(ch) in _BAD_CATEGORIES for ch in value if ch not in NAME_JOINERS):
        return None
    value = " ".join(value.split())  # only space separators are left to collapse here
    if _SPECIAL_TOKEN.search(value) or not any(ch.isalnum() for ch in value):
        return None
    visible = "".join(ch for ch in value if ch not in NAME_JOINERS)
    return value if visible.isprintable() else None


def join_answers(answers: Sequence[str], limit: int = MAX_ANSWER_CHARS) -> str:
    """Answers as one phrase, ``"; "``-separated, as many as fit in ``limit`` characters (the
    longest answer kept), at least the first.

    >>> join_answers(["Drama", "Comedy"]), join_answers(["A" * 8, "B" * 8], limit=12)
    ('Drama; Comedy', 'AAAAAAAA')
    """
    joined = ""
    for answer in answers:
        longer = f"{joined}; {answer}" if joined else answer
        if joined and len(longer) > limit:
            break
        joined = longer
    return joined


def safe_answer(text: Any) -> str:
    """:func:`answer_phrase`, or ``"Unknown"`` when ``text`` is not a phrase.

    >>> safe_answer("Paris"), safe_answer("\\u2028")
    ('Paris', 'Unknown')
    """
    return answer_phrase(text) or UNKNOWN


def _bound(value: float) -> str:
    """A range bound as written: whole numbers in full (``4294967295``, not ``4.29497e+09``)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def check_range(owner: str, name: str, value: Any, low: float, high: float) -> None:
    """Refuse ``value`` unless it is a number in ``[low, high]``.

    >>> check_range("ToG", "width", 100, 1, 8)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: ToG setting width=100 is out of range: ...
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise InvalidSettingError(f"{owner} setting {name} must be a number, got {value!r}")
    if not low <= value <= high:
        raise InvalidSettingError(
            f"{owner} setting {name}={value!r} is out of range: it must be between "
            f"{_bound(low)} and {_bound(high)}"
        )


def check_settings(owner: str, settings: Any, limits: Mapping[str, tuple[float, float]]) -> None:
    """:func:`check_range` for every limited setting of ``settings`` (an object or a mapping).

    >>> check_settings("CoT-SC", {"n": 5}, COT_SC_LIMITS)
    """
    for name, (low, high) in limits.items():
        if isinstance(settings, Mapping):
            if name not in settings:
                continue
            value = settings[name]
        elif hasattr(settings, name):
            value = getattr(settings, name)
        else:
            continue
        check_range(owner, name, value, low, high)
