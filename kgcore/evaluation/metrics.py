"""Answer normalisation and the scores the reports use: hit@1, strict and grounded hit@1,
answer recall, and a Wilson interval for a hit rate.

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
>>> strict_hit("1990 | 1991 | 1992", ["1991"]), hit_at_1("1990 | 1991 | 1992", ["1991"])
(False, True)
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from kgcore.exceptions import ConfigurationError
from kgcore.text.answer_forms import contains_answer, normalize_answer

__all__ = [
    "answer_recall",
    "contains_answer",
    "first_answer",
    "grounded_hit",
    "hit_at_1",
    "is_topic_answer",
    "normalize_answer",
    "strict_hit",
    "wilson_interval",
]


def hit_at_1(prediction: str, answers: Sequence[str]) -> bool:
    """The papers' hit@1: some gold answer equals or is contained in the prediction."""
    return any(contains_answer(prediction, answer) for answer in answers)


def answer_recall(context: str, answers: Sequence[str]) -> float | None:
    """Share of the gold answers found in the retrieved context; ``None`` without context."""
    if not context.strip() or not answers:
        return None
    found = sum(contains_answer(context, answer) for answer in answers)
    return found / len(answers)


_FIRST_SPLIT = re.compile(r"\s*(?:\||;|\n)\s*")


def first_answer(prediction: str) -> str:
    """The first answer a prediction gives: the part before ``|``, ``;`` or a line break.

    >>> first_answer("Shane; Giant")
    'Shane'
    """
    parts = [p for p in _FIRST_SPLIT.split(str(prediction).strip()) if p.strip()]
    return parts[0] if parts else ""


def strict_hit(prediction: str, answers: Sequence[str]) -> bool:
    """Strict hit@1: the first answer given equals a gold answer after normalisation.

    A reply listing ten years is a hit@1 by containment, not a strict one. Commas also
    separate answers unless the whole first part is a gold answer ("Crouching Tiger, Hidden
    Dragon").
    """
    golds = {normalize_answer(a) for a in answers} - {""}
    first = first_answer(prediction)
    if normalize_answer(first) in golds:
        return True
    return normalize_answer(first.split(",")[0]) in golds


def grounded_hit(prediction: str, answers: Sequence[str], context: str) -> bool:
    """A hit@1 whose matched gold answer also appears in the retrieved context.

    >>> grounded_hit("Shane", ["Shane"], "Shane directed by George Stevens."), grounded_hit(
    ...     "Shane", ["Shane"], "")
    (True, False)
    """
    return any(
        contains_answer(prediction, a) and contains_answer(context or "", a) for a in answers
    )


def is_topic_answer(prediction: str, topic_entities: Sequence[str]) -> bool:
    """Whether the prediction is one of the question's topic entities (never an answer)."""
    forms = {normalize_answer(t) for t in topic_entities} - {""}
    return normalize_answer(first_answer(prediction)) in forms


def wilson_interval(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a hit rate (95% for ``z=1.96``).

    scipy and statsmodels offer it too; this closed form avoids a dependency for one line.

    >>> tuple(round(x, 3) for x in wilson_interval(30, 50))
    (0.462, 0.724)
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= hits <= n:
        raise ConfigurationError(f"hits must be between 0 and n, got hits={hits}, n={n}")
    p = hits / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))
