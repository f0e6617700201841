"""Per-question traces as JSONL: one record a line, appended as questions finish.

A run resumes from its trace file: questions already recorded are skipped (errored ones too,
unless asked to retry them); when an id appears twice the later record wins.

Records are split at ``\n`` only (never at U+0085 or U+2028, which may sit in an answer), and
any string round-trips: a record that cannot be written as UTF-8 (a lone surrogate) is written
with ASCII escapes. A record appended after a half-written last line (a killed run) starts on a
new line, and an unreadable line is skipped with a warning, so its question is simply run again;
so is a record that breaks the schema (:mod:`kgcore.evaluation.records`: ``"llm_calls":
"many"``, no ``id``, ...).

Beside each trace, a run writes the ids of its dataset (:func:`write_dataset_ids`,
``<run>__<dataset>.ids.json``): the report counts only those (:func:`read_dataset_ids`), so a
record left from a longer run, or one whose id is in no dataset, is not counted.

Example
-------
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
>>> append_trace(path, {"id": "q1", "hit": True})
>>> append_trace(path, {"id": "q1", "hit": False})
>>> read_traces(path)
[{'id': 'q1', 'hit': False}]
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kgcore.evaluation.records import record_problem
from kgcore.exceptions import ConfigurationError

_UNSAFE = re.compile(r"[^A-Za-z0-9_.=,+-]+")


def trace_file_name(label: str, dataset: str) -> str:
    """A file-system-safe trace file name for a run label and a dataset name."""
    return f"{_UNSAFE.sub('_', label)}__{_UNSAFE.sub('_', dataset)}.jsonl"


def encode_record(record: dict[str, Any]) -> bytes:
    """One JSON line, UTF-8; ASCII escapes when the record holds a lone surrogate.

    >>> line = encode_record({"answer": chr(0xD800) + chr(0x2028)})
    >>> json.loads(line)["answer"] == chr(0xD800) + chr(0x2028), line.count(bytes([10]))
    (True, 1)
    """
    try:
        return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")


def append_trace(path: str | Path, record: dict[str, Any]) -> None:
    """Append one record (flushed at once, so an interrupted run loses nothing).

    After a half-written last line the record starts on a new line.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = encode_record(record)
    with path.open("ab") as handle:
        if handle.tell() > 0:
            with path.open("rb") as reader:
                reader.seek(-1, 2)
                if reader.read(1) != b"\n":
                    data = b"\n" + data
        handle.write(data)
        handle.flush()


def read_traces(path: str | Path) -> list[dict[str, Any]]:
    """The records of a trace file, the latest per id, in first-seen order.

    Lines are split at ``\n`` only. A line that cannot be read (half-written, corrupt, not
    UTF-8) or whose record breaks the schema (:func:`~kgcore.evaluation.records.record_problem`:
    no ``id``, ``"llm_calls": "many"``, ...) is skipped with a warning naming the file and
    line, so the question it held is run again (no warning once another record of its id
    is good); a truncated last line is skipped silently.
    """
    path = Path(path)
    if not path.exists():
        return []
    if path.is_dir():
        raise ConfigurationError(f"trace file {path} is a directory")
    lines = path.read_bytes().split(b"\n")
    records: dict[str, dict[str, Any]] = {}
    bad: dict[str | None, list[str]] = {}  # id -> why its records were skipped
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError) as err:  # UnicodeDecodeError is a ValueError
            if number < len(lines) - 1 or raw.endswith(b"\r"):
                warnings.warn(
                    f"{path}:{number}: unreadable trace record skipped, its question will run "
                    f"again ({type(err).__name__}: {str(err)[:80]})",
                    stacklevel=2,
                )
            continue
        problem = record_problem(record)
        if problem is not None:
            identifier = record.get("id") if isinstance(record, dict) else None
            bad.setdefault(identifier if isinstance(identifier, str) else None, []).append(
                f"{path}:{number}: bad trace record skipped, its question will run again "
                f"({problem})"
            )
            continue
        records[record["id"]] = record
    for identifier, messages in bad.items():
        if identifier is None or identifier not in records:  # not answered by another record
            for message in messages:
                warnings.warn(message, stacklevel=2)
    return list(records.values())


def dataset_ids_path(trace_path: str | Path) -> Path:
    """Where the ids of a trace's dataset are kept: ``<run>__<dataset>.ids.json`` beside it.

    >>> dataset_ids_path("runs/io__qa.jsonl").name
    'io__qa.ids.json'
    """
    path = Path(trace_path)
    return path.with_name(f"{path.stem}.ids.json")


def write_dataset_ids(trace_path: str | Path, dataset: str, ids: Iterable[str]) -> Path:
    """Record the ids of the dataset a trace was last run on (written whole, then renamed, so
    a killed run leaves the previous list, never half of one)."""
    path = dataset_ids_path(trace_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps({"dataset": dataset, "ids": list(ids)}, ensure_ascii=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".ids-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def read_dataset_ids(trace_path: str | Path) -> frozenset[str] | None:
    """The ids of the dataset a trace was last run on, or ``None`` when unknown (no list, as
    for traces written before the lists existed, or an unreadable one, with a warning).

    >>> import tempfile, pathlib
    >>> trace = pathlib.Path(tempfile.mkdtemp()) / "io__qa.jsonl"
    >>> _ = write_dataset_ids(trace, "qa", ["q1", "q2"])
    >>> sorted(read_dataset_ids(trace))
    ['q1', 'q2']
    """
    path = dataset_ids_path(trace_path)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError) as err:
        warnings.warn(f"{path}: unreadable list of dataset ids ignored ({err})", stacklevel=2)
        return None
    ids = data.get("ids") if isinstance(data, dict) else None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        warnings.warn(f"{path}: list of dataset ids ignored (no 'ids' strings)", stacklevel=2)
        return None
    return frozenset(ids)
