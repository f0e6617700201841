"""Checks the example notebooks print beside an answer, so their text never vouches for it.

The notebooks' outputs are made later by ``make notebooks`` with the local model; the markdown
cannot know what the model will answer. Instead each answer is followed by :func:`verdict`,
which says whether it names a gold answer (MetaQA's, or the example graph's) and, when it does
not, whether the gold answer was in what the method retrieved (the model misread it) or not
(the retrieval missed it). :func:`trace_expectation` reads what the committed benchmark
traces say the local model answered, for the comparison notebook.

Example
-------
>>> print(verdict("FastToG", "Haarlem", ["Netherlands"], context="Haarlem located in Netherlands."))
FastToG: WRONG. 'Haarlem' names no gold answer (Netherlands); the gold answer was in what it \
retrieved, so the model misread the facts.
>>> print(verdict("FastToG", "Netherlands", ["Netherlands"]))
FastToG: right. 'Netherlands' names a gold answer (Netherlands).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from kgeval.metrics import contains_answer, hit_at_1

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


@cache
def _metaqa_questions() -> dict[str, tuple[str, ...]]:
    from kgeval.datasets import load_dataset

    questions: dict[str, tuple[str, ...]] = {}
    for hop in ("1hop", "2hop", "3hop"):
        for example in load_dataset(f"metaqa:{hop}").examples:
            questions.setdefault(example.question, tuple(example.answers))
    return questions


def metaqa_gold(question: str) -> list[str] | None:
    """MetaQA's gold answers of a dev question, or ``None`` when it is not one."""
    try:
        answers = _metaqa_questions().get(question)
    except Exception:  # noqa: BLE001 - no MetaQA: no gold answers, the notebook goes on
        return None
    return list(answers) if answers is not None else None


def verdict(
    method: str,
    answer: str,
    gold: Sequence[str] | None,
    context: str | None = None,
    fell_back: bool = False,
) -> str:
    """One line: is ``answer`` right, and if not, did the retrieval or the model miss? An
    answer of the fallback (``fell_back``) is the model's own knowledge, not the graph's.

    >>> print(verdict("FastToG", "Netherlands", ["Netherlands"], fell_back=True))
    FastToG: right, but from the fallback: 'Netherlands' is the model's own knowledge, not read \
off the graph (gold: Netherlands).
    """
    if not gold:
        return f"{method}: {answer!r} (no gold answer known for this question)"
    shown = ", ".join(list(gold)[:4]) + (" ..." if len(gold) > 4 else "")
    if hit_at_1(answer, gold) and fell_back:
        return (
            f"{method}: right, but from the fallback: {answer!r} is the model's own knowledge, "
            f"not read off the graph (gold: {shown})."
        )
    if hit_at_1(answer, gold):
        return f"{method}: right. {answer!r} names a gold answer ({shown})."
    line = f"{method}: WRONG. {answer!r} names no gold answer ({shown})"
    if context is None:
        return line + "."
    if any(contains_answer(context, g) for g in gold):
        return line + "; the gold answer was in what it retrieved, so the model misread the facts."
    return line + "; the gold answer was not in what it retrieved, so the retrieval missed it."


def trace_expectation(method: str, dataset: str, question_id: str) -> dict[str, object] | None:
    """What the committed traces record for this method and question (``prediction``, ``hit``),
    newest report first (``benchmarks/results/kgqa_dev/``, then ``benchmarks/results/``)."""
    for folder in (RESULTS / "kgqa_dev", RESULTS):
        path = folder / f"{method}__{dataset}.jsonl"
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("id") == question_id:
                return {"prediction": record.get("prediction"), "hit": record.get("hit")}
    return None
