"""Answer normalisation and the scores the harness reports: hit@1 and answer recall.

hit@1 is scored as the ToG and FastToG papers do: the prediction counts as correct when a
normalised gold answer equals the normalised prediction or is contained in it. Containment is
checked on word boundaries, so the gold ``"1963"`` is found in ``"released in 1963"`` but the
gold ``"Up"`` is not found in ``"Upside Down"``.

Example
-------
>>> normalize_answer("The  Matrix!")
'matrix'
>>> hit_at_1("It was {Joseph L. Mankiewicz}.", ["Joseph L. Mankiewicz"])
True
>>> answer_recall("Cleopatra directed by Joseph L. Mankiewicz.", ["Joseph L. Mankiewicz", "X"])
0.5
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(f"[{re.escape(string.punctuation)}‘’“”–—]")
_SPACES = re.compile(r"\s+")


def normalize_answer(text: str) -> str:
    """Lower-case, strip accents, punctuation and articles, collapse spaces."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = _PUNCT.sub(" ", text)
    text = _ARTICLES.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def contains_answer(text: str, answer: str) -> bool:
    """Whether the normalised ``answer`` occurs in the normalised ``text`` on word boundaries."""
    gold = normalize_answer(answer)
    if not gold:
        return False
    return f" {gold} " in f" {normalize_answer(text)} "


def hit_at_1(prediction: str, answers: Sequence[str]) -> bool:
    """The papers' hit@1: some gold answer equals or is contained in the prediction."""
    return any(contains_answer(prediction, answer) for answer in answers)


def answer_recall(context: str, answers: Sequence[str]) -> float | None:
    """Share of the gold answers found in the retrieved context; ``None`` without context."""
    if not context.strip() or not answers:
        return None
    found = sum(contains_answer(context, answer) for answer in answers)
    return found / len(answers)
