"""Read triple files: ``head|relation|tail`` text, TSV, CSV and JSONL.

The format follows the file's suffix (``.txt``/``.psv`` pipe-separated, ``.tsv``, ``.csv``,
``.jsonl``/``.json``) unless ``fmt`` names it. Files are UTF-8 (a byte-order mark is
skipped); lines end at ``\n`` (a ``\r`` before it is dropped). A first row is a header only when
it is exactly one of :data:`HEADER_ROWS` (``head, relation, tail``, ...): a row such as
``Headhunters<TAB>directed_by<TAB>...`` is data. A malformed line, a line that is not UTF-8, a
binary file (NUL bytes) or a directory raises :class:`~kgcore.exceptions.GraphLoadError` naming
the file and the line, and so does a name that is blank or holds a control character
(:func:`~kgcore.graph.names.check_triple`), or in JSONL a name that is neither a string nor an
integer (``null``, an object, a list). A file without a triple (empty, blank or a header only)
is refused too: it is not a graph.

Example
-------
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "kb.txt"
>>> _ = path.write_text("Cleopatra|directed_by|Joseph L. Mankiewicz\\n")
>>> list(read_triples(path, progress=False))
[Triple(head='Cleopatra', relation='directed_by', tail='Joseph L. Mankiewicz')]
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from kgcore.exceptions import GraphLoadError, KGRetrieverError
from kgcore.graph.names import check_triple
from kgcore.progress import show_progress
from kgcore.types import Triple

FORMATS = ("pipe", "tsv", "csv", "jsonl")
#: First rows read as a header (compared lower-cased, fields stripped).
HEADER_ROWS = frozenset(
    {
        ("head", "relation", "tail"),
        ("h", "r", "t"),
        ("subject", "predicate", "object"),
        ("source", "relation", "target"),
    }
)
#: The longest line read (bytes): a longer one is refused rather than held in memory.
MAX_LINE_BYTES = 1 << 20
_SUFFIX_FORMATS = {
    ".txt": "pipe",
    ".psv": "pipe",
    ".tsv": "tsv",
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".json": "jsonl",
}


def detect_format(path: Path) -> str:
    """The triple format implied by ``path``'s suffix."""
    fmt = _SUFFIX_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise GraphLoadError(
            f"cannot tell the triple format of {path} from its suffix; "
            f"pass fmt= one of {', '.join(FORMATS)}"
        )
    return fmt


def _json_name(value: Any) -> Any:
    """A JSON name: a string, or an integer as its decimal text; anything else (``null``, an
    object, a list, a float, a boolean) is left for :func:`check_triple` to refuse."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _triple_from_json(obj: Any) -> Triple:
    if isinstance(obj, list) and len(obj) == 3:
        return check_triple([_json_name(v) for v in obj])
    if isinstance(obj, dict):
        for keys in (
            ("head", "relation", "tail"),
            ("h", "r", "t"),
            ("subject", "predicate", "object"),
        ):
            if all(k in obj for k in keys):
                return check_triple([_json_name(obj[k]) for k in keys])
    raise GraphLoadError("expected [head, relation, tail] or an object with head/relation/tail")


def _fields(line: str, fmt: str) -> list[str]:
    if fmt == "csv":
        return next(csv.reader(io.StringIO(line)), [])
    return line.split("|" if fmt == "pipe" else "\t")


def is_header(line: str, fmt: str) -> bool:
    """Whether ``line`` is exactly a header row of :data:`HEADER_ROWS`.

    >>> is_header("head\\trelation\\ttail", "tsv")
    True
    >>> is_header("Headhunters\\tdirected_by\\tX", "tsv")
    False
    """
    if fmt == "jsonl":
        return False
    try:
        fields = _fields(line.rstrip("\r\n"), fmt)
    except csv.Error:
        return False
    return tuple(f.strip().lower() for f in fields) in HEADER_ROWS


def _parse_line(line: str, fmt: str) -> Triple | None:
    line = line.rstrip("\r\n")
    if not line.strip():
        return None
    if fmt == "jsonl":
        try:
            return _triple_from_json(json.loads(line))
        except RecursionError as err:
            raise GraphLoadError("JSON nested too deeply") from err
    fields = _fields(line, fmt)
    if len(fields) != 3:
        raise GraphLoadError(f"expected 3 fields, found {len(fields)}")
    head, relation, tail = (f.strip() for f in fields)
    if not head or not relation or not tail:
        raise GraphLoadError("empty head, relation or tail")
    return check_triple((head, relation, tail))


def decode_line(
    raw: bytes, path: Path, number: int, error: type[KGRetrieverError], kind: str
) -> str:
    """Line ``number`` of the file ``path`` as text, or ``error`` naming the file, the line and
    why: a NUL byte (binary data; ``kind`` names the text file expected) or bytes that are not
    UTF-8. A byte-order mark on the first line is skipped.

    >>> decode_line(b"a|b|c\\n", Path("kb.txt"), 1, GraphLoadError, "triple file")
    'a|b|c\\n'
    >>> decode_line(b"\\x00", Path("kb.txt"), 2, GraphLoadError, "triple file")
    Traceback (most recent call last):
    ...
    kgcore.exceptions.GraphLoadError: kb.txt:2: binary data (a NUL byte); expected a UTF-8 tri...
    """
    if b"\x00" in raw:
        raise error(f"{path}:{number}: binary data (a NUL byte); expected a UTF-8 {kind}")
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as err:
        raise error(
            f"{path}:{number}: not UTF-8 text (byte 0x{raw[err.start]:02x} at column "
            f"{err.start + 1}); save the file as UTF-8"
        ) from err


def _decoded_lines(path: Path) -> Iterator[tuple[int, str, int]]:
    """``(line number, text, bytes)`` of a UTF-8 file, lines split at ``\n`` only."""
    with path.open("rb") as handle:
        number = 0
        while raw := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise GraphLoadError(f"{path}:{number}: line longer than {MAX_LINE_BYTES:,} bytes")
            yield number, decode_line(raw, path, number, GraphLoadError, "triple file"), len(raw)


def read_triples(
    path: str | Path, fmt: str | None = None, progress: bool | None = None
) -> Iterator[Triple]:
    """Yield the triples of a file, with a progress bar over its bytes (``progress``: ``None``,
    the default, shows it only when stderr is a terminal; a library stays quiet in a log).

    Raises
    ------
    GraphLoadError
        For a missing file, a directory, an unknown format, a malformed line or name (naming
        ``file:line``), or a file that holds no triple (empty, blank, a header only), once it
        has been read.
    """
    path = Path(path)
    if path.is_dir():
        raise GraphLoadError(f"{path} is a directory, not a triple file")
    if not path.is_file():
        raise GraphLoadError(f"triple file not found: {path}")
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise GraphLoadError(f"unknown triple format {fmt!r}; expected one of {', '.join(FORMATS)}")
    with tqdm(
        total=path.stat().st_size,
        unit="B",
        unit_scale=True,
        desc=f"loading {path.name}",
        disable=not show_progress(progress),
    ) as bar:
        found = False
        for number, line, size in _decoded_lines(path):
            bar.update(size)
            if number == 1 and is_header(line, fmt):
                continue
            try:
                triple = _parse_line(line, fmt)
            except (GraphLoadError, ValueError, csv.Error) as err:  # ValueError: bad JSON
                raise GraphLoadError(f"{path}:{number}: malformed {fmt} triple: {err}") from err
            if triple is not None:
                found = True
                yield triple
    if not found:
        raise GraphLoadError(f"{path} holds no triples (it is empty or blank): not a graph")
