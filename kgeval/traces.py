"""Per-question traces as JSONL: one record a line, appended as questions finish.

A run resumes from its trace file: questions already recorded are skipped (errored ones too,
unless asked to retry them); when an id appears twice the later record wins.

Records are split at ``\n`` only (never at U+0085 or U+2028, which may sit in an answer), and
any string round-trips: a record that cannot be written as UTF-8 (a lone surrogate) is written
with ASCII escapes. A record appended after a half-written last line (a killed run) starts on a
new line, and an unreadable line is skipped with a warning, so its question is simply run again;
so is a record that breaks the schema (:mod:`kgeval.records`: ``"llm_calls":
"many"``, no ``id``, ...).

Beside each trace, a run writes the ids of its dataset (:func:`write_dataset_ids`,
``<run>__<dataset>.ids.json``): the report counts only those (:func:`read_dataset_ids`), so a
record left from a longer run, or one whose id is in no dataset, is not counted.

Records are written whole or not at all (:func:`append_trace`: a full disk leaves the file as
it was and says so), and as they will be read back
(:func:`~kgeval.records.writable_record`: a NaN time is written as ``null`` and
named), so no record is written that a resume would skip and run, and bill, again. Only a
regular file is read, a line at most :data:`~kgeval.records.MAX_RECORD_BYTES` long.

Example
-------
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
>>> base = {"dataset": "d", "method": "io", "run": "io", "question": "?", "answers": ["x"]}
>>> append_trace(path, {"id": "q1", **base, "prediction": "y", "hit": False})
>>> append_trace(path, {"id": "q1", **base, "prediction": "x", "hit": True})
>>> [(r["id"], r["hit"]) for r in read_traces(path)]
[('q1', True)]
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from kgcore.exceptions import ConfigurationError, OutputWriteError
from kgeval.records import MAX_RECORD_BYTES, record_problem, writable_record

_UNSAFE = re.compile(r"[^A-Za-z0-9_.=,+-]+")
#: ``os.O_BINARY`` where it exists (Windows): no newline translation in a trace.
_BINARY = getattr(os, "O_BINARY", 0)


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
    """Append one record, whole or not at all (flushed at once, so an interrupted run loses
    nothing).

    The line is written with one ``write`` per try; when the system takes only part of it
    (a full disk) or fails, the file is cut back to where it was, so no half-written record is
    left. After a half-written last line (a killed run) the record starts on a new line. The
    record is written as it will be read (:func:`~kgeval.records.writable_record`).

    Raises
    ------
    ConfigurationError
        For a record the reader would refuse (nothing is written).
    OutputWriteError
        When the file cannot be written (a full disk, a read-only folder); the message names
        the file and the reason, and the file is as it was.
    """
    path = Path(path)
    data = encode_record(writable_record(record))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _BINARY, 0o644)
    except OSError as err:
        raise OutputWriteError(f"cannot write the trace {path}: {err.strerror or err}") from err
    try:
        start = os.fstat(handle).st_size
        if start > 0:
            os.lseek(handle, start - 1, os.SEEK_SET)  # writes still go to the end (O_APPEND)
            if os.read(handle, 1) != b"\n":
                data = b"\n" + data
        _write_whole(handle, data, start, path)
    except OutputWriteError:
        _drop_if_empty(path)
        raise
    except OSError as err:
        raise OutputWriteError(f"cannot write the trace {path}: {err.strerror or err}") from err
    finally:
        os.close(handle)


def _drop_if_empty(path: Path) -> None:
    """Remove the trace a failed first write left empty (it holds nothing to resume from)."""
    with contextlib.suppress(OSError):
        if path.is_file() and path.stat().st_size == 0:
            path.unlink()


def _write_whole(handle: int, data: bytes, start: int, path: Path) -> None:
    """Write ``data`` at the end of the open file ``handle`` (``start`` bytes long), or cut it
    back to ``start`` and raise :class:`OutputWriteError` (any interruption cuts it back too)."""
    written = 0
    try:
        while written < len(data):
            written += os.write(handle, data[written:])
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.ftruncate(handle, start)
        if isinstance(err, OSError):
            raise OutputWriteError(
                f"cannot write the trace {path}: {err.strerror or err}; the file is as it was "
                "before this record"
            ) from err
        raise


def read_traces(path: str | Path) -> list[dict[str, Any]]:
    """The records of a trace file, the latest per id, in first-seen order.

    Lines are split at ``\n`` only. A line that cannot be read (half-written, corrupt, not
    UTF-8, longer than :data:`~kgeval.records.MAX_RECORD_BYTES`) or whose record
    breaks the schema (:func:`~kgeval.records.record_problem`: no ``id``, a missing
    required field, ``"llm_calls": "many"``, ...) is skipped with a warning naming the file and
    line, so the question it held is run again (no warning once another record of its id
    is good); a truncated last line is skipped silently.

    Raises
    ------
    ConfigurationError
        When ``path`` is a folder or not a regular file (a device such as ``/dev/full``, a
        pipe): it is not read at all.
    """
    path = Path(path)
    if not path.exists():
        return []
    if path.is_dir():
        raise ConfigurationError(f"trace file {path} is a directory")
    if not path.is_file():
        raise ConfigurationError(f"trace file {path} is not a regular file (a device, a pipe?)")
    records: dict[str, dict[str, Any]] = {}
    bad: dict[str | None, list[str]] = {}  # id -> why its records were skipped
    with path.open("rb") as handle:
        for number, raw, last in _lines(handle):
            if not raw.strip():
                continue
            if len(raw) > MAX_RECORD_BYTES:
                warnings.warn(
                    f"{path}:{number}: a line longer than {MAX_RECORD_BYTES} bytes is no trace "
                    "record; skipped",
                    stacklevel=2,
                )
                continue
            try:
                record = json.loads(raw.decode("utf-8"))
            except (ValueError, RecursionError) as err:  # UnicodeDecodeError is a ValueError
                if not last or raw.endswith(b"\r"):
                    warnings.warn(
                        f"{path}:{number}: unreadable trace record skipped, its question will "
                        f"run again ({type(err).__name__}: {str(err)[:80]})",
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


def _lines(handle: BinaryIO) -> Iterator[tuple[int, bytes, bool]]:
    """``(number, line, is_last)`` of a binary file split at ``\n`` only, each line read up to
    :data:`MAX_RECORD_BYTES` + 1 bytes (the rest of a longer one is passed over, not kept), and
    whether it ran to the end of the file without a ``\n``."""
    number = 0
    while True:
        raw = handle.readline(MAX_RECORD_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_RECORD_BYTES and not raw.endswith(b"\n"):
            while True:  # pass over the rest of the line
                rest = handle.readline(1 << 20)
                if not rest or rest.endswith(b"\n"):
                    break
        ended = raw.endswith(b"\n")
        yield number, raw.removesuffix(b"\n"), not ended


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
    data = json.dumps({"dataset": dataset, "ids": list(ids)}, ensure_ascii=True)
    write_whole_file(path, data.encode("ascii"), prefix=".ids-")
    return path


def write_whole_file(path: str | Path, data: bytes, prefix: str = ".kgqa-") -> Path:
    """Write ``data`` to ``path`` whole or not at all: into a temporary file beside it, then
    renamed over it, so a reader (or a killed run) sees the old file or the new one, never
    half of one.

    Raises
    ------
    OutputWriteError
        When it cannot be written (a full disk, a read-only folder, a folder in its place);
        ``path`` is then as it was and no temporary file is left.
    """
    path = Path(path)
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.is_file() else 0o644
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            if hasattr(os, "fchmod"):  # mkstemp's 0600 would hide the result from others
                os.fchmod(out.fileno(), mode)
            out.write(data)
        os.replace(temporary, path)
    except OSError as err:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        raise OutputWriteError(f"cannot write {path}: {err.strerror or err}") from err
    except BaseException:
        if temporary is not None:
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
