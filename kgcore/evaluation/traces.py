"""Per-question traces as JSONL: one record a line, appended as questions finish.

A run resumes from its trace file: questions already recorded are skipped (errored ones too,
unless asked to retry them); when an id appears twice the later record wins.

Records are split at ``\n`` only (never at U+0085 or U+2028, which may sit in an answer), and
any string round-trips: a record that cannot be written as UTF-8 (a lone surrogate) is written
with ASCII escapes. A record appended after a half-written last line (a killed run) starts on a
new line, and an unreadable line is skipped with a warning, so its question is simply run again.

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
import re
import warnings
from pathlib import Path
from typing import Any

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
    UTF-8, or without an ``id``) is skipped with a warning naming the file and line, so the
    question it held is run again; a truncated last line is skipped silently.
    """
    path = Path(path)
    if not path.exists():
        return []
    if path.is_dir():
        raise ConfigurationError(f"trace file {path} is a directory")
    lines = path.read_bytes().split(b"\n")
    records: dict[str, dict[str, Any]] = {}
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
        if not isinstance(record, dict) or "id" not in record:
            warnings.warn(f"{path}:{number}: trace record without an 'id' skipped", stacklevel=2)
            continue
        records[str(record["id"])] = record
    return list(records.values())
