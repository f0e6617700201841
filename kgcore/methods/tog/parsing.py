"""How ToG reads its replies: scored letters (relation pruning, entity scoring) and the
reasoning step's verdict.

Example
-------
>>> parse_scores("{A: 0.6, C: 0.4}", n_options=3, max_choices=3)
{0: 0.6, 2: 0.4}
>>> parse_sufficiency("{Unknown}")
(False, None)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgcore.llm.parsing import parse_choices
from kgcore.methods.kernel import parse_graph_answer

_SCORE = re.compile(r"\b([A-Z])\b\s*[:=(\-]\s*(?:score\s*[:=]?\s*)?(\d*\.?\d+)", re.IGNORECASE)


def parse_scores(text: str, n_options: int, max_choices: int) -> dict[int, float] | None:
    """Option index -> score from a reply like ``{A: 0.6, C: 0.4}``.

    Falls back to letters without scores (equal shares). ``{}`` means none fits; ``None``
    means nothing usable was found.

    Example
    -------
    >>> parse_scores("{A: 0.6, C: 0.4}", n_options=3, max_choices=3)
    {0: 0.6, 2: 0.4}
    >>> parse_scores("B", n_options=3, max_choices=3)
    {1: 1.0}
    """
    scores: dict[int, float] = {}
    for letter, value in _SCORE.findall(text):
        index = ord(letter.upper()) - ord("A")
        if 0 <= index < n_options and index not in scores:
            try:
                scores[index] = float(value)
            except ValueError:
                continue
    if scores:
        best = sorted(scores.items(), key=lambda kv: -kv[1])[:max_choices]
        return {i: s for i, s in best if s > 0} or {i: 1.0 / len(best) for i, _ in best}
    picked = parse_choices(text, n_options=n_options, max_choices=max_choices)
    if picked is None:
        return None
    return {i: 1.0 / len(picked) for i in picked}


def parse_sufficiency(
    text: str, nodes: Sequence[str] | None = None
) -> tuple[bool, str | None] | None:
    """``(True, answer)`` for "Yes {answer}", ``(False, None)`` for "No", ``None`` if unclear.

    ``nodes`` (the nodes of the triples shown): ``{Unknown}`` names a node of that name
    among them, else it means "no answer" (:func:`~kgcore.methods.kernel.parse_graph_answer`).

    Example
    -------
    >>> parse_sufficiency("Yes. {Cobra}")
    (True, 'Cobra')
    >>> parse_sufficiency("{No}")
    (False, None)
    """
    body = text.strip()
    lowered = body.lower().lstrip("{[(\"'* ")
    if re.match(r"no\b", lowered):
        return False, None
    cleaned = re.sub(r"\{\s*(yes|no)\s*\}", " ", body, flags=re.IGNORECASE)
    if re.match(r"yes\b", lowered):
        rest = re.sub(r"^[\s{\[(\"'*]*yes\b[\s.,:!}\])\"'*-]*", "", cleaned, flags=re.IGNORECASE)
        answer = parse_graph_answer(rest, nodes) if rest.strip() else None
        return (True, answer) if answer else None
    if "{" in cleaned:
        answer = parse_graph_answer(cleaned, nodes)
        return (True, answer) if answer else (False, None)
    return None
