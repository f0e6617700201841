"""The schema of a trace record: what one line of a trace holds, checked whenever one is read,
and made sure of before one is written.

A record is a JSON object with a non-empty string ``id`` and the fields every record the
harness writes has (:data:`REQUIRED_FIELDS`: which run, which dataset, the question, its gold
answers, the prediction and the hit), so a stray ``{"id", "hit"}`` line is no table row of its
own. Every other field it has must be of its kind (:data:`RECORD_FIELDS`), so a hand-edited or
corrupted record (``"llm_calls": "many"``, ``"hit": "yes"``, a negative time) is refused by
:func:`record_problem` rather than breaking a resume or a report. Fields the schema does not
know are kept as they are (newer runs may add some), and an optional field may be missing (an
errored question has no ``llm_calls``).

The writer and the reader agree: :func:`writable_record` gives the record as it will be read
back (a number that is not finite, a NaN time from a model's metadata, becomes ``null`` and
is named in the record's ``nulled`` list), or refuses it, so no line is written that a resume
would skip and run (and bill) again.

Example
-------
>>> base = {"id": "q1", "dataset": "d", "method": "io", "run": "io", "question": "?",
...         "answers": ["x"], "prediction": "x", "hit": True}
>>> record_problem(base | {"llm_calls": 2}) is None
True
>>> record_problem(base | {"llm_calls": "many"})
"'llm_calls' must be a whole number >= 0 (or null), got 'many'"
>>> record_problem({"id": "q1", "hit": True})
"'dataset' is missing (every record the harness writes has it)"
>>> clean = writable_record(base | {"llm_seconds": float("nan")})
>>> clean["llm_seconds"], clean["nulled"]
(None, ['llm_seconds'])
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from kgcore.exceptions import ConfigurationError

__all__ = [
    "MAX_RECORD_BYTES",
    "NULLED_FIELD",
    "RECORD_FIELDS",
    "REQUIRED_FIELDS",
    "record_problem",
    "writable_record",
]

#: The longest trace record (one JSON line, in bytes) written or read: a record is a question,
#: its answers, a prediction and at most 4,000 characters of context, far below it; a longer
#: line is not a record (a reader stops there instead of filling the memory).
MAX_RECORD_BYTES = 16 * 1024 * 1024
#: The field naming what :func:`writable_record` wrote as ``null`` (not a finite number, or
#: out of its field's range), so a repaired value is never mistaken for a measured one.
NULLED_FIELD = "nulled"


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
#: writes (:func:`kgeval.harness.run_example`).
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
    NULLED_FIELD: (_names, "a list of strings", True),
}

#: Fields every record the harness writes has, an errored question's included
#: (:func:`kgeval.harness.run_example`); a record without one is no record.
REQUIRED_FIELDS = ("dataset", "method", "run", "question", "answers", "prediction", "hit")


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
    for name in REQUIRED_FIELDS:
        if name not in record:
            return f"{name!r} is missing (every record the harness writes has it)"
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


def _finite(value: Any, where: str, nulled: list[str]) -> Any:
    """``value`` with every float that is not finite replaced by ``None`` (its place added to
    ``nulled``), at any depth."""
    if isinstance(value, float) and not math.isfinite(value):
        nulled.append(where)
        return None
    if isinstance(value, dict):
        return {
            k: _finite(v, f"{where}.{k}" if where else str(k), nulled) for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_finite(v, f"{where}[{i}]", nulled) for i, v in enumerate(value)]
    return value


def writable_record(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` as a trace line holds it, so that reading it back gives a valid record.

    A number that is not finite (NaN seconds from a model's metadata), at any depth, becomes
    ``null``, and so does an optional field whose value is out of its kind (a negative time);
    each is named in the ``nulled`` list, so a repaired value is never taken for a measured
    one. A record too long for a trace line (:data:`MAX_RECORD_BYTES`) loses its ``extra``
    and ``context`` (also named).

    Raises
    ------
    ConfigurationError
        When the record is still not one the reader accepts (:func:`record_problem`: no
        ``id``, a required field missing or of the wrong kind); nothing is to be written then.

    Example
    -------
    >>> writable_record({"id": "q1", "hit": True})
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: trace record 'q1' cannot be written: 'dataset' is ...
    """
    nulled: list[str] = []
    clean = _finite(dict(record), "", nulled)
    for name, (test, _, nullable) in RECORD_FIELDS.items():
        value = clean.get(name)
        if nullable and value is not None and name != NULLED_FIELD and not test(value):
            clean[name] = None
            nulled.append(name)
    if _encoded_size(clean) > MAX_RECORD_BYTES:
        for name in ("extra", "context"):
            if clean.get(name) is not None:
                clean[name] = None
                nulled.append(name)
    if nulled:
        earlier = clean.get(NULLED_FIELD)
        kept = [n for n in earlier if isinstance(n, str)] if isinstance(earlier, list) else []
        clean[NULLED_FIELD] = list(dict.fromkeys(kept + nulled))
    problem = record_problem(clean)
    if problem is None and _encoded_size(clean) > MAX_RECORD_BYTES:
        problem = f"longer than {MAX_RECORD_BYTES} bytes"
    if problem is not None:
        identifier = record.get("id") if isinstance(record, dict) else None
        raise ConfigurationError(f"trace record {identifier!r} cannot be written: {problem}")
    return clean


def _encoded_size(record: dict[str, Any]) -> int:
    """An upper bound of the record's length as a trace line (ASCII escapes are the longest)."""
    return len(json.dumps(record, ensure_ascii=True, default=str)) + 1
