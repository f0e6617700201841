"""The schema of a trace record: what one line of a trace holds, checked whenever one is read.

A record is a JSON object with a non-empty string ``id``; every other field it has must be of
its kind (:data:`RECORD_FIELDS`), so a hand-edited or corrupted record (``"llm_calls":
"many"``, ``"hit": "yes"``, a negative time) is refused by :func:`record_problem` rather than
breaking a resume or a report. Fields the schema does not know are kept as they are (newer
runs may add some), and a known field may be missing (an errored question has no
``llm_calls``).

Example
-------
>>> record_problem({"id": "q1", "hit": True, "llm_calls": 2}) is None
True
>>> record_problem({"id": "q1", "llm_calls": "many"})
"'llm_calls' must be a whole number >= 0 (or null), got 'many'"
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["RECORD_FIELDS", "record_problem"]


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _flag(value: Any) -> bool:
    return isinstance(value, bool)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _seconds(value: Any) -> bool:
    return _number(value) and value >= 0


def _share(value: Any) -> bool:
    return _number(value) and 0 <= value <= 1


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _object(value: Any) -> bool:
    return isinstance(value, dict)


#: field -> (test, what it must be, whether ``null`` is allowed) for the fields the harness
#: writes (:func:`kgcore.evaluation.harness.run_example`).
RECORD_FIELDS: dict[str, tuple[Callable[[Any], bool], str, bool]] = {
    "dataset": (_text, "a string", False),
    "method": (_text, "a string", False),
    "run": (_text, "a string", False),
    "options": (_object, "an object", False),
    "max_community_size": (_count, "a whole number >= 0", True),
    "question": (_text, "a string", False),
    "answers": (_names, "a list of strings", False),
    "topic_entities": (_names, "a list of strings", False),
    "prediction": (_text, "a string", False),
    "hit": (_flag, "true or false", False),
    "answered": (_flag, "true or false", False),
    "recall": (_share, "a number between 0 and 1", True),
    "llm_calls": (_count, "a whole number >= 0", True),
    "prompt_tokens": (_count, "a whole number >= 0", True),
    "completion_tokens": (_count, "a whole number >= 0", True),
    "depth": (_count, "a whole number >= 0", True),
    "fell_back": (_flag, "true or false", False),
    "graph_seconds": (_seconds, "a number >= 0", True),
    "llm_seconds": (_seconds, "a number >= 0", True),
    "total_seconds": (_seconds, "a number >= 0", True),
    "context": (_text, "a string", True),
    "extra": (_object, "an object", True),
    "error": (_text, "a string", True),
}


def record_problem(record: Any) -> str | None:
    """Why ``record`` is not a trace record, or ``None`` when it is one.

    >>> record_problem(["q1"]), record_problem({"id": ""})
    ('a record must be a JSON object, got list', "'id' must be a non-empty string, got ''")
    """
    if not isinstance(record, dict):
        return f"a record must be a JSON object, got {type(record).__name__}"
    identifier = record.get("id")
    if not isinstance(identifier, str) or not identifier:
        return f"'id' must be a non-empty string, got {identifier!r}"
    for name, (test, kind, nullable) in RECORD_FIELDS.items():
        if name not in record:
            continue
        value = record[name]
        if value is None and nullable:
            continue
        if not test(value):
            shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
            return f"{name!r} must be {kind}{' (or null)' if nullable else ''}, got {shown}"
    return None
