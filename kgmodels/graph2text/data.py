"""WebNLG reading: ``{"triples": [[s, p, o], ...], "texts": [...], "category", ...}`` lines.

Example
-------
>>> import json, tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "w.jsonl"
>>> _ = path.write_text(json.dumps({"triples": [["A_B", "p", "C"]], "texts": ["A B p C."]}))
>>> entries = read_webnlg(path)
>>> entries[0].triples, entries[0].texts
([Triple(head='A B', relation='p', tail='C')], ['A B p C.'])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from kgcore.exceptions import ConfigurationError
from kgcore.text.graph2text.linearize import plain_triples
from kgcore.types import Triple


@dataclass(frozen=True)
class WebNLGEntry:
    """One data-to-text entry: plain-word triples and its reference texts."""

    triples: list[Triple]
    texts: list[str]
    category: str = ""
    seen: bool = True
    extra: dict[str, str] = field(default_factory=dict)


#: The WebNLG 2017 test set's unseen categories (the other ten are seen in training).
UNSEEN_CATEGORIES = frozenset(
    {"Athlete", "Artist", "CelestialBody", "MeanOfTransportation", "Politician"}
)


def read_webnlg(path: str | Path, skip_without_text: bool = False) -> list[WebNLGEntry]:
    """Read a WebNLG (or synthetic, same format) JSONL file.

    Parameters
    ----------
    path : str or Path
        The file.
    skip_without_text : bool
        Drop entries with no reference text (two WebNLG dev entries have none).
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigurationError(f"WebNLG file not found: {path}")
    entries: list[WebNLGEntry] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                triples = plain_triples(row["triples"])
                texts = [str(t).strip() for t in row.get("texts", []) if str(t).strip()]
            except (ValueError, KeyError, TypeError) as err:
                raise ConfigurationError(f"{path}:{number}: not a WebNLG entry ({err})") from err
            if skip_without_text and not texts:
                continue
            category = str(row.get("category", ""))
            entries.append(WebNLGEntry(triples, texts, category, category not in UNSEEN_CATEGORIES))
    return entries
