"""Summaries of trace records: a Markdown table and matplotlib plots.

:func:`summarize` averages one run's records; :func:`write_report` reads every trace file of a
folder and writes the table and two PNG plots: hit@1 against average LLM calls per method, and
average depth and hit@1 against FastToG's maximum community size (the FastToG paper's Figures 3
and 4), when FastToG runs with several sizes are there.

Example
-------
>>> summarize([{"hit": True, "llm_calls": 2, "depth": 1}, {"hit": False, "llm_calls": 4}])["hit@1"]
0.5
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from statistics import mean
from typing import Any, NamedTuple

from kgcore.exceptions import OutputWriteError
from kgeval.examples import NO_TOPICS
from kgeval.metrics import (
    answer_f1,
    answer_recall,
    grounded_hit,
    is_loop_back,
    rog_f1,
    rog_hit,
    strict_hit,
    topic_echo,
    wilson_interval,
)
from kgeval.report_plots import (
    _overall,
    plot_accuracy_vs_calls,
    plot_community_size,
)
from kgeval.traces import read_dataset_ids, read_traces, write_whole_file

COLUMNS = (
    ("run", "method"),
    ("dataset", "data"),
    ("n", "n"),
    ("hit@1", "hit@1"),
    ("hit@1_ci", "CI"),
    ("f1", "F1"),
    ("strict", "strict"),
    ("rog_hit", "RoG Hit"),
    ("rog_f1", "RoG F1"),
    ("grounded", "grounded"),
    ("recall", "answer recall"),
    ("gold_share", "gold share"),
    ("shown_misses", "misses, gold shown"),
    ("llm_calls", "LLM calls"),
    ("prompt_tokens", "prompt tok"),
    ("completion_tokens", "compl. tok"),
    ("depth", "depth"),
    ("graph_seconds", "graph s"),
    ("llm_seconds", "LLM s"),
    ("total_seconds", "wall s"),
    ("fell_back", "fallbacks"),
    ("errors", "errors"),
)


def _avg(values: Iterable[Any]) -> float | None:
    numbers = [float(v) for v in values if v is not None]
    return mean(numbers) if numbers else None


#: The suffix of a dataset's rows computed over its questions whose gold answer is no topic
#: entity (the others loop back to the topic entity: :func:`summary_rows`).
NOT_LOOP_BACK = "[gold≠topic]"


class RecordScore(NamedTuple):
    """The scores of one trace record (:func:`score_record`)."""

    hit: bool
    strict: bool | None
    grounded: bool | None
    f1: float | None


def score_record(record: dict[str, Any]) -> RecordScore:
    """(hit@1, strict, grounded, F1) of one record, under the topic-entity rule: a first answer
    that is a topic entity is a miss (F1 0) unless a gold answer is that entity
    (:func:`~kgeval.metrics.topic_echo`).

    Strict, grounded and F1 are ``None`` for records without ``prediction`` and ``answers``.

    Example
    -------
    >>> loop = {"answers": ["Indiana"], "topic_entities": ["Indiana"]}
    >>> score_record(loop | {"prediction": "Indiana", "hit": True})
    RecordScore(hit=True, strict=True, grounded=False, f1=1.0)
    >>> score_record(loop | {"answers": ["Ohio"], "prediction": "Indiana", "hit": True})
    RecordScore(hit=False, strict=False, grounded=False, f1=0.0)
    """
    prediction, answers = record.get("prediction"), record.get("answers")
    if prediction is None or answers is None:
        return RecordScore(bool(record.get("hit")), None, None, None)
    prediction = str(prediction)
    if topic_echo(prediction, answers, record.get("topic_entities") or []):
        return RecordScore(False, False, False, 0.0)
    answered = _answered(record)
    hit = bool(record.get("hit"))
    strict = hit and strict_hit(prediction, answers)
    grounded = hit and grounded_hit(prediction, answers, str(record.get("context") or ""))
    return RecordScore(hit, strict, grounded, answer_f1(prediction, answers, answered))


def gold_shown(record: dict[str, Any]) -> bool:
    """Whether a gold answer of the record is in the context its method retrieved (on word
    boundaries, normalised): a miss with a gold answer shown was lost in the reading.

    >>> gold_shown({"answers": ["Oslo"], "context": "Ann born in Oslo."})
    True
    >>> gold_shown({"answers": ["Oslo"], "context": ""})
    False
    """
    answers = [str(a) for a in record.get("answers") or []]
    return bool(answer_recall(str(record.get("context") or ""), answers))


def loops_back(record: dict[str, Any]) -> bool:
    """Whether a gold answer of the record is a topic entity of its question."""
    return is_loop_back(record.get("answers") or [], record.get("topic_entities") or [])


def _rog(record: dict[str, Any], score: Any) -> float | None:
    """A record under one of RoG's definitions (:func:`~kgeval.metrics.rog_hit`,
    :func:`~kgeval.metrics.rog_f1`), the topic-entity rule kept (an echo scores 0); ``None``
    without ``prediction`` and ``answers``."""
    prediction, answers = record.get("prediction"), record.get("answers")
    if prediction is None or answers is None:
        return None
    if topic_echo(str(prediction), answers, record.get("topic_entities") or []):
        return 0.0
    return float(score(str(prediction), [str(a) for a in answers], _answered(record)))


def _answered(record: dict[str, Any]) -> bool | None:
    """Whether the record's method answered; ``None`` for older records (read from the text)."""
    answered = record.get("answered")
    return answered if isinstance(answered, bool) else None


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Averages over one run's records (errors count as misses for hit@1)."""
    scores = [score_record(r) for r in records]
    hits = sum(s.hit for s in scores)
    return {
        "n": len(records),
        "hit@1": _avg(s.hit for s in scores),
        "hit@1_ci": wilson_interval(hits, len(records)) if records else None,
        "f1": _avg(s.f1 for s in scores),
        "strict": _avg(s.strict for s in scores),
        "rog_hit": _avg(_rog(r, rog_hit) for r in records),
        "rog_f1": _avg(_rog(r, rog_f1) for r in records),
        "grounded": _avg(s.grounded for s in scores),
        "recall": _avg(None if r.get("recall") is None else r["recall"] > 0 for r in records),
        "gold_share": _avg(r.get("recall") for r in records),
        "shown_misses": _shown_misses(records, scores),
        "llm_calls": _avg(r.get("llm_calls", 0) for r in records),
        "prompt_tokens": _avg(r.get("prompt_tokens") for r in records),
        "completion_tokens": _avg(r.get("completion_tokens") for r in records),
        "depth": _avg(r.get("depth", 0) for r in records),
        "graph_seconds": _avg(r.get("graph_seconds") for r in records),
        "llm_seconds": _avg(r.get("llm_seconds") for r in records),
        "total_seconds": _avg(r.get("total_seconds") for r in records),
        "fell_back": sum(bool(r.get("fell_back")) for r in records),
        "errors": sum(bool(r.get("error")) for r in records),
        "max_community_size": next(
            (r["max_community_size"] for r in records if r.get("max_community_size")), None
        ),
    }


def _shown_misses(
    records: Sequence[dict[str, Any]], scores: Sequence[RecordScore]
) -> tuple[int, int] | None:
    """(misses with a gold answer in the context, misses); ``None`` when no record has a
    context (a method that retrieves nothing)."""
    if not any(str(r.get("context") or "").strip() for r in records):
        return None
    misses = [r for r, s in zip(records, scores, strict=True) if not s.hit]
    return sum(gold_shown(r) for r in misses), len(misses)


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "–"
    if key == "shown_misses":
        return f"{value[0]}/{value[1]}"
    if key in ("hit@1", "f1", "recall", "gold_share", "strict", "grounded", "rog_hit", "rog_f1"):
        return f"{value:.2f}"
    if key == "hit@1_ci":
        return f"{value[0]:.2f}–{value[1]:.2f}"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def markdown_table(rows: Sequence[dict[str, Any]]) -> str:
    """A Markdown table of summary rows (each with ``run`` and ``dataset`` keys)."""
    header = "| " + " | ".join(title for _, title in COLUMNS) + " |"
    rule = "|" + "|".join("---" for _ in COLUMNS) + "|"
    body = ["| " + " | ".join(_cell(k, row.get(k)) for k, _ in COLUMNS) + " |" for row in rows]
    return "\n".join([header, rule, *body])


def overview_table(rows: Sequence[dict[str, Any]]) -> str | None:
    """hit@1 overall (with its 95% interval, F1, strict, grounded and answer recall) and per
    dataset, LLM
    calls, prompt tokens and wall seconds per question, one line per run.

    ``None`` unless some run spans several datasets (the detailed table says it all then).

    Example
    -------
    >>> rows = [
    ...     {"run": "io", "dataset": "a", "hit@1": 1.0, "f1": 0.5, "llm_calls": 1.0},
    ...     {"run": "io", "dataset": "b", "hit@1": 0.0, "f1": 0.0, "llm_calls": 1.0},
    ...     {"run": "io", "dataset": "all", "hit@1": 0.5, "f1": 0.25, "llm_calls": 1.0, "n": 2},
    ... ]
    >>> print(overview_table(rows).replace("misses, gold shown | LLM calls | prompt tok", "..."))
    | method | n | hit@1 all | CI | F1 | strict | grounded | answer recall | a | b | ... | wall s |
    |---|---|---|---|---|---|---|---|---|---|---|---|---|---|
    | io | 2 | 0.50 | – | 0.25 | – | – | – | 1.00 | 0.00 | – | 1.0 | – | – |
    """
    datasets = list(dict.fromkeys(r["dataset"] for r in rows if r["dataset"] != "all"))
    if not any(r["dataset"] == "all" for r in rows):
        return None
    by_key = {(r["run"], r["dataset"]): r for r in rows}
    overall = _overall(rows)
    # Most accurate first: the table answers "which method wins" at a glance.
    order = sorted(overall, key=lambda run: (-(overall[run].get("hit@1") or 0.0), run))
    header = [
        "method",
        "n",
        "hit@1 all",
        "CI",
        "F1",
        "strict",
        "grounded",
        "answer recall",
        *datasets,
        "misses, gold shown",
        "LLM calls",
        "prompt tok",
        "wall s",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for run in order:
        row = overall[run]
        cells = [run, _cell("n", row.get("n")), _cell("hit@1", row.get("hit@1"))]
        cells += [_cell(k, row.get(k)) for k in ("hit@1_ci", "f1", "strict", "grounded", "recall")]
        for dataset in datasets:
            part = by_key.get((run, dataset))
            cells.append(_cell("hit@1", part.get("hit@1") if part else None))
        keys = ("shown_misses", "llm_calls", "prompt_tokens", "total_seconds")
        cells += [_cell(k, row.get(k)) for k in keys]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def load_runs(folder: str | Path) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Records of every trace file (``<run>__<dataset>.jsonl``) in ``folder``, by (run, dataset).

    Records are read through the schema (:func:`~kgeval.traces.read_traces`: a bad
    one is skipped with a warning), and where the trace's dataset ids are known
    (:func:`~kgeval.traces.read_dataset_ids`) only the records of those ids count.
    """
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for path in sorted(Path(folder).glob("*__*.jsonl")):
        ids = read_dataset_ids(path)
        for record in read_traces(path):
            if ids is not None and record["id"] not in ids:
                continue
            key = (
                str(record.get("run", record.get("method", path.stem))),
                str(record.get("dataset", "")),
            )
            runs.setdefault(key, []).append(record)
    return runs


def summary_rows(runs: dict[tuple[str, str], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One row per (run, dataset), then an ``all`` row per run spanning several datasets.

    A dataset where some questions loop back (a gold answer is a topic entity, as in
    PathQuestion's PQL sets) and some do not gets a second row, ``<dataset>[gold≠topic]``,
    over the others only; the ``all`` rows count every question once (a ``<dataset>-no-topics``
    run asks its dataset's questions again, without their topic entities: it has its own rows,
    outside ``all``).

    Example
    -------
    >>> records = [
    ...     {"answers": ["Indiana"], "topic_entities": ["Indiana"], "prediction": "Indiana"},
    ...     {"answers": ["Ohio"], "topic_entities": ["Indiana"], "prediction": "Indiana; Ohio"},
    ... ]
    >>> for record in records:
    ...     record["hit"] = True  # hit_at_1: the gold is in the prediction (an echo, in the 2nd)
    >>> [(r["dataset"], r["n"], r["hit@1"]) for r in summary_rows({("echo", "d"): records})]
    [('d', 2, 0.5), ('d[gold≠topic]', 1, 0.0)]
    """
    rows = []
    by_run: dict[str, list[dict[str, Any]]] = {}
    for (run, dataset), records in sorted(runs.items()):
        rows.append({"run": run, "dataset": dataset, **summarize(records)})
        others = [r for r in records if not loops_back(r)]
        if 0 < len(others) < len(records):
            rows.append({"run": run, "dataset": dataset + NOT_LOOP_BACK, **summarize(others)})
        if not dataset.endswith(NO_TOPICS):  # the same questions again: counted once
            by_run.setdefault(run, []).extend(records)
    for run, records in sorted(by_run.items()):
        if len({r.get("dataset") for r in records}) > 1:
            rows.append({"run": run, "dataset": "all", **summarize(records)})
    return rows


def write_report(
    folder: str | Path,
    summary_name: str = "summary.md",
    plots: bool = True,
    title: str | None = None,
) -> Path:
    """Write ``folder/summary_name`` (table and plots) over every trace file in ``folder``.

    The summary is written whole or not at all
    (:func:`~kgeval.traces.write_whole_file`); a file that cannot be written is an
    :class:`~kgcore.exceptions.OutputWriteError` naming it.
    """
    folder = Path(folder)
    rows = summary_rows(load_runs(folder))
    stem = Path(summary_name).stem
    lines = [f"# {title or 'Evaluation summary'}", ""]
    overview = overview_table(rows)
    if overview is not None:
        lines += ["## Overview", "", overview, "", "## Details", ""]
    lines += [markdown_table(rows), ""]
    if plots and rows:
        try:
            calls = plot_accuracy_vs_calls(rows, folder / f"{stem}_accuracy_vs_calls.png")
            lines += [f"![hit@1 against LLM calls]({calls.name})", ""]
            sizes = plot_community_size(rows, folder / f"{stem}_community_size.png")
            if sizes is not None:
                lines += [f"![depth and hit@1 against community size]({sizes.name})", ""]
        except ImportError:
            lines += ["(plots skipped: matplotlib is not installed)", ""]
        except OSError as err:
            raise OutputWriteError(f"cannot write the plots in {folder}: {err}") from err
    lines += [
        "hit@1: a normalised gold answer equals or is contained (on word boundaries) in the",
        "normalised prediction; CI: its 95% Wilson interval. Strict: the first answer given equals",
        "a gold answer. Grounded: a hit whose gold answer is also in the retrieved context.",
        "F1: of the answer set given (split at ;, | and line breaks) against the gold set, both",
        "normalised. A first answer that is a topic entity of the question is an echo, a miss",
        "(F1 0), unless a gold answer is that entity: in PathQuestion PQL-2H and PQL-3H about",
        "two in five gold answers are the topic entity itself (same-name self-loops of the",
        "source KB), and answering them is right. A dataset with such loop-back records also",
        f"has a <data>{NOT_LOOP_BACK} row over the others only; the 'all' rows count each",
        "question once. The echo method answers the first topic entity with no LLM call: what",
        "echoing alone scores.",
        "Answer recall: share of the records whose retrieved context holds a gold answer (graph",
        "methods only); gold share: the share of gold answers that context holds, averaged.",
        "Misses, gold shown: of the misses, how many had a gold answer in that context",
        "(lost in the reading, not in the retrieval). Averages are per question (prompt tokens",
        "and wall seconds too); errors count as misses.",
        "",
    ]
    out = folder / summary_name
    return write_whole_file(out, "\n".join(lines).encode("utf-8"), prefix=".summary-")
