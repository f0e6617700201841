"""Read triple files: ``head|relation|tail`` text, TSV, CSV and JSONL.

The format follows the file's suffix (``.txt``/``.psv`` pipe-separated, ``.tsv``, ``.csv``,
``.jsonl``/``.json``) unless ``fmt`` names it. A malformed line raises
:class:`~kgcore.exceptions.GraphLoadError` naming the file and line number.

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

from kgcore.exceptions import GraphLoadError
from kgcore.types import Triple

FORMATS = ("pipe", "tsv", "csv", "jsonl")
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


def _triple_from_json(obj: Any) -> Triple:
    if isinstance(obj, list) and len(obj) == 3:
        return Triple(str(obj[0]), str(obj[1]), str(obj[2]))
    if isinstance(obj, dict):
        for keys in (
            ("head", "relation", "tail"),
            ("h", "r", "t"),
            ("subject", "predicate", "object"),
        ):
            if all(k in obj for k in keys):
                return Triple(*(str(obj[k]) for k in keys))
    raise ValueError("expected [head, relation, tail] or an object with head/relation/tail")


def _parse_line(line: str, fmt: str) -> Triple | None:
    line = line.rstrip("\r\n")
    if not line.strip():
        return None
    if fmt == "jsonl":
        return _triple_from_json(json.loads(line))
    if fmt == "csv":
        fields = next(csv.reader(io.StringIO(line)))
    else:
        fields = line.split("|" if fmt == "pipe" else "\t")
    if len(fields) != 3:
        raise ValueError(f"expected 3 fields, found {len(fields)}")
    head, relation, tail = (f.strip() for f in fields)
    if not head or not relation or not tail:
        raise ValueError("empty head, relation or tail")
    return Triple(head, relation, tail)


def read_triples(
    path: str | Path, fmt: str | None = None, progress: bool = True
) -> Iterator[Triple]:
    """Yield the triples of a file, with a progress bar over its bytes."""
    path = Path(path)
    if not path.is_file():
        raise GraphLoadError(f"triple file not found: {path}")
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise GraphLoadError(f"unknown triple format {fmt!r}; expected one of {', '.join(FORMATS)}")
    with (
        path.open("r", encoding="utf-8") as handle,
        tqdm(
            total=path.stat().st_size,
            unit="B",
            unit_scale=True,
            desc=f"loading {path.name}",
            disable=not progress,
        ) as bar,
    ):
        first = True
        for number, line in enumerate(handle, start=1):
            bar.update(len(line.encode("utf-8")))
            if first and fmt in ("csv", "tsv") and line.lower().startswith(("head", "subject")):
                first = False
                continue  # a header row
            first = False
            try:
                triple = _parse_line(line, fmt)
            except (ValueError, json.JSONDecodeError) as err:
                raise GraphLoadError(f"{path}:{number}: malformed {fmt} triple: {err}") from err
            if triple is not None:
                yield triple
