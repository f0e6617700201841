"""Reading CGPE's replies: character matching of clues to names, and clue-match replies.

Example
-------
>>> char_match("Jane Seymour", "jane seymour")
100.0
>>> parse_clue_matches("{A: films, B: none}", 2, ["films", "person"])
{0: 'films'}
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz, process

from kgcore.graph.memory import normalize_name
from kgcore.llm.parsing import NONE_WORDS, parse_choices

_PLACEHOLDERS = {"clue", "clue left", "a clue"}
_CLUE_PAIR = re.compile(r"\b([A-Z])\b\s*[:=\-]+>?\s*([^,;\n{}]+)")


def char_match(a: str, b: str) -> float:
    """Character similarity of two names, 0-100 (rapidfuzz ``ratio`` on normalised names)."""
    return float(fuzz.ratio(normalize_name(a), normalize_name(b)))


def parse_clue_matches(
    text: str, n_options: int, clues: Sequence[str]
) -> dict[int, str | None] | None:
    """Option index -> matched clue from ``{A: film, B: none}``.

    A letter without a clue maps to ``None`` (the only clue when one is left). ``{}`` means no
    match; ``None`` means nothing usable was found.

    Example
    -------
    >>> parse_clue_matches("{A: films, B: none}", 2, ["films", "person"])
    {0: 'films'}
    >>> parse_clue_matches("{A: clue, B: none}", 2, ["films", "person"])  # format copied
    {0: None}
    """
    pairs: dict[int, str | None] = {}
    said_none = False
    for letter, said in _CLUE_PAIR.findall(text):
        index = ord(letter) - ord("A")
        if not 0 <= index < n_options or index in pairs:
            continue
        said = said.strip().strip("\"'`.").strip()
        if not said or NONE_WORDS.fullmatch(said.lower()) or said.lower() in {"no", "n/a"}:
            said_none = True
            continue
        best = process.extractOne(said, list(clues), scorer=fuzz.WRatio, processor=normalize_name)
        if best is not None and best[1] >= 70:
            pairs[index] = best[0]
        elif len(clues) == 1 or said.strip("<>").lower() in _PLACEHOLDERS:
            # A small model may copy the format's placeholder: a match, clue unnamed.
            pairs[index] = clues[0] if len(clues) == 1 else None
    if pairs or said_none:
        return pairs
    picked = parse_choices(text, n_options=n_options, max_choices=n_options)
    if picked is None:
        return None
    only = clues[0] if len(clues) == 1 else None
    return {i: only for i in picked}
