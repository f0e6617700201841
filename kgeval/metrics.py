"""Answer normalisation and the scores the reports use: hit@1, strict and grounded hit@1,
answer F1, answer recall, and a Wilson interval for a hit rate.

hit@1 is scored as the ToG and FastToG papers do: the prediction counts as correct when a
normalised gold answer equals the normalised prediction or is contained in it. Containment is
checked on word boundaries, so the gold ``"1963"`` is found in ``"released in 1963"`` but the
gold ``"Up"`` is not found in ``"Upside Down"``.

A prediction whose first answer is a topic entity of the question is a miss (an *echo*,
:func:`topic_echo`) unless a gold answer is that entity: in PathQuestion's PQL sets many
questions loop back to their topic entity (:func:`is_loop_back`), and those answers count.

A method that did not answer (``MethodResult.answered`` is ``False``: its answer is the typed
:data:`~kgcore.validation.UNKNOWN`) scores nothing, whatever the gold answers; a node named
``Unknown``, ``None`` or ``N/A`` that a method answered is scored like any other answer. The
functions take ``answered``; left out, a prediction is unanswered when it is the typed
``UNKNOWN`` or, read back from a record, the text ``Unknown`` (:func:`prediction_answered`).

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
from kgcore.validation import UNKNOWN, is_unknown_answer

__all__ = [
    "answer_f1",
    "answer_recall",
    "answer_set",
    "contains_answer",
    "first_answer",
    "grounded_hit",
    "hit_at_1",
    "is_loop_back",
    "is_topic_answer",
    "normalize_answer",
    "prediction_answered",
    "rog_f1",
    "rog_hit",
    "scored_hit",
    "strict_hit",
    "topic_echo",
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


def prediction_answered(prediction: object, answered: bool | None = None) -> bool:
    """Whether a prediction is an answer: ``answered`` when given (a result's or a record's),
    else not for the typed :data:`~kgcore.validation.UNKNOWN`, nor for the text ``Unknown``
    of a record written without ``answered``.

    >>> prediction_answered("Unknown"), prediction_answered("Unknown", answered=True)
    (False, True)
    >>> prediction_answered(UNKNOWN, answered=None), prediction_answered("Shane")
    (False, True)
    """
    if answered is not None:
        return bool(answered)
    return not (is_unknown_answer(prediction) or str(prediction).strip() == UNKNOWN)


def answer_set(prediction: str, answered: bool | None = None) -> set[str]:
    """The normalised answers a prediction gives, split at ``|``, ``;`` and line breaks (as
    :func:`first_answer`); empty for an empty or unanswered prediction
    (:func:`prediction_answered`).

    >>> sorted(answer_set("The Matrix; Shane | shane"))
    ['matrix', 'shane']
    >>> answer_set("Unknown"), answer_set("Unknown", answered=True)
    (set(), {'unknown'})
    """
    if not prediction_answered(prediction, answered):
        return set()
    return {normalize_answer(p) for p in _FIRST_SPLIT.split(str(prediction).strip())} - {""}


def answer_f1(prediction: str, answers: Sequence[str], answered: bool | None = None) -> float:
    """F1 of the predicted answer set against the gold set, both normalised
    (:func:`answer_set`; an answer counts when it equals a gold one). An empty or unanswered
    prediction has F1 0.

    >>> answer_f1("Shane; Giant", ["Shane"]), answer_f1("Shane", ["Shane", "Giant"])
    (0.6666666666666666, 0.6666666666666666)
    >>> answer_f1("shane | GIANT", ["Giant", "Shane"]), answer_f1("Unknown", ["Shane"])
    (1.0, 0.0)
    >>> answer_f1("Unknown", ["Unknown"]), answer_f1("Unknown", ["Unknown"], answered=True)
    (0.0, 1.0)
    """
    predicted = answer_set(prediction, answered)
    golds = {normalize_answer(a) for a in answers} - {""}
    correct = len(predicted & golds)
    if not correct:
        return 0.0
    precision, recall = correct / len(predicted), correct / len(golds)
    return 2 * precision * recall / (precision + recall)


_ROG_PUNCTUATION = re.compile(r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]")
_ROG_ARTICLES = re.compile(r"\b(a|an|the)\b")


def _rog_normal(text: str) -> str:
    """RoG's ``normalize``: lower case, no ASCII punctuation, no articles, single spaces."""
    text = _ROG_PUNCTUATION.sub("", text.lower())
    return " ".join(_ROG_ARTICLES.sub(" ", text).split())


def _rog_answers(prediction: str, answered: bool | None) -> list[str]:
    if not prediction_answered(prediction, answered):
        return []
    return [p for p in _FIRST_SPLIT.split(str(prediction).strip()) if p.strip()]


def rog_hit(prediction: str, answers: Sequence[str], answered: bool | None = None) -> bool:
    """Hit as RoG's ``evaluate_results.py`` scores it (Luo et al., ICLR 2024): a gold answer,
    normalised (:func:`_rog_normal`), is a substring of the whole normalised prediction. More
    lenient than hit@1 ("United States" hits "United States of America"); an unanswered
    prediction hits nothing.

    >>> rog_hit("United States of America", ["United States"]), rog_hit("Unknown", ["x"])
    (True, False)
    """
    predicted = _rog_normal(" ".join(_rog_answers(prediction, answered)))
    if not predicted:
        return False
    return any(_rog_normal(a) in predicted for a in answers if _rog_normal(a))


def rog_f1(prediction: str, answers: Sequence[str], answered: bool | None = None) -> float:
    """F1 as RoG's ``evaluate_results.py`` scores it: precision is the gold answers found
    (as substrings, :func:`rog_hit`'s rule) in the whole prediction over the number of
    predicted answers, recall the same count over the gold answers.

    >>> rog_f1("Shane; Giant", ["Shane"]), rog_f1("Unknown", ["Shane"])
    (0.6666666666666666, 0.0)
    """
    predicted = _rog_answers(prediction, answered)
    if not predicted or not answers:
        return 0.0
    whole = _rog_normal(" ".join(predicted))
    matched = sum(1 for a in answers if _rog_normal(a) and _rog_normal(a) in whole)
    if not matched:
        return 0.0
    precision, recall = matched / len(predicted), matched / len(answers)
    return 2 * precision * recall / (precision + recall)


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
    """Whether the prediction's first answer is one of the question's topic entities (a miss
    only when no gold answer is that entity: :func:`topic_echo`)."""
    forms = {normalize_answer(t) for t in topic_entities} - {""}
    return normalize_answer(first_answer(prediction)) in forms


def is_loop_back(answers: Sequence[str], topic_entities: Sequence[str]) -> bool:
    """Whether a gold answer is a topic entity of the question (compared normalised): the
    question loops back to where it starts, as 40% of PathQuestion PQL-3H's do.

    >>> is_loop_back(["Indiana"], ["indiana"]), is_loop_back(["Ohio"], ["Indiana"])
    (True, False)
    """
    forms = {normalize_answer(t) for t in topic_entities} - {""}
    return any(normalize_answer(a) in forms for a in answers)


def topic_echo(prediction: str, answers: Sequence[str], topic_entities: Sequence[str]) -> bool:
    """Whether the prediction echoes the question: its first answer is a topic entity that no
    gold answer is (normalised). Such a prediction is a miss; a topic entity that is a gold
    answer (a loop-back question, :func:`is_loop_back`) is not an echo.

    >>> topic_echo("Indiana", ["Ohio"], ["Indiana"])
    True
    >>> topic_echo("Indiana", ["Indiana"], ["Indiana"])
    False
    """
    first = normalize_answer(first_answer(prediction))
    topics = {normalize_answer(t) for t in topic_entities} - {""}
    return first in topics and first not in {normalize_answer(a) for a in answers}


def scored_hit(
    prediction: str,
    answers: Sequence[str],
    topic_entities: Sequence[str],
    answered: bool | None = None,
) -> bool:
    """hit@1 under the topic-entity rule: :func:`hit_at_1`, and not a :func:`topic_echo`; never
    for an unanswered prediction (:func:`prediction_answered`).

    >>> scored_hit("Indiana", ["Indiana"], ["Indiana"]), scored_hit("Giant", ["Giant", "Shane"],
    ...     ["Giant"]), scored_hit("the Giant", ["Shane"], ["Giant"])
    (True, True, False)
    >>> scored_hit(UNKNOWN, ["Unknown"], []), scored_hit("Unknown", ["Unknown"], [], True)
    (False, True)
    """
    if not prediction_answered(prediction, answered):
        return False
    return hit_at_1(prediction, answers) and not topic_echo(prediction, answers, topic_entities)


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
