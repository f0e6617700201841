"""Per-question traces as JSONL: one record a line, appended as questions finish.

A run resumes from its trace file: questions already recorded are skipped (errored ones too,
unless asked to retry them); when an id appears twice the later record wins.

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
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError

_UNSAFE = re.compile(r"[^A-Za-z0-9_.=,+-]+")


def trace_file_name(label: str, dataset: str) -> str:
    """A file-system-safe trace file name for a run label and a dataset name."""
    return f"{_UNSAFE.sub('_', label)}__{_UNSAFE.sub('_', dataset)}.jsonl"


def append_trace(path: str | Path, record: dict[str, Any]) -> None:
    """Append one record (flushed at once, so an interrupted run loses nothing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        handle.flush()


def read_traces(path: str | Path) -> list[dict[str, Any]]:
    """The records of a trace file, the latest per id, in first-seen order.

    A truncated last line (a run killed mid-write) is ignored; any other bad line raises a
    :class:`~kgcore.exceptions.ConfigurationError` naming the file and line.
    """
    path = Path(path)
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    records: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            if number == len(lines):
                break
            raise ConfigurationError(f"{path}:{number}: corrupt trace line: {err}") from err
        if not isinstance(record, dict) or "id" not in record:
            raise ConfigurationError(f"{path}:{number}: a trace record needs an 'id'")
        records[str(record["id"])] = record
    return list(records.values())
