r"""Each benchmark's files read into :class:`~kgeval.examples.Dataset`: MetaQA, ExplaGraphs,
a JSONL format, PathQuestion, WebQSP and CWQ (the formats: :mod:`kgeval.datasets`).

Example
-------
>>> import tempfile, pathlib, json
>>> path = pathlib.Path(tempfile.mkdtemp()) / "qa.jsonl"
>>> _ = path.write_text(json.dumps({"question": "who directed [Heat]", "answers": "M"}) + "\n")
>>> load_jsonl(path).examples[0].topic_entities
('Heat',)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError, GraphLoadError
from kgcore.graph.names import check_triples
from kgcore.linking import bracketed_entities
from kgcore.types import Triple
from kgeval.examples import (
    EXPLAGRAPHS_QUESTION,
    EXPLAGRAPHS_SPLITS,
    METAQA_HOPS,
    PATHQUESTION_SETS,
    Dataset,
    EvalExample,
    _folder,
    _limit,
    _need_file,
    text_lines,
)


def load_metaqa(
    hop: str = "1hop", limit: int | None = None, data_dir: str | Path | None = None
) -> Dataset:
    """MetaQA questions of one hop count (``"1hop"``/``"2hop"``/``"3hop"``), in file order."""
    if hop not in METAQA_HOPS:
        raise ConfigurationError(f"unknown MetaQA split {hop!r}; expected one of {METAQA_HOPS}")
    root = _folder(data_dir, "metaqa")
    path = _need_file(root / f"dev_{hop}.txt", "MetaQA questions", "metaqa")
    examples: list[EvalExample] = []
    for number, line in text_lines(path):
        if not line.strip():
            continue
        fields = line.rstrip("\r\n").split("\t")
        if len(fields) < 2:
            raise ConfigurationError(f"{path}:{number}: expected question<TAB>answers")
        question, answers = fields[0].strip(), [a for a in fields[1].split("|") if a]
        examples.append(
            EvalExample(
                id=f"metaqa-{hop}-{number}",
                question=question,
                answers=tuple(answers),
                topic_entities=tuple(bracketed_entities(question)),
                meta={"hop": hop, "type": fields[2] if len(fields) > 2 else ""},
            )
        )
    return Dataset(f"metaqa-{hop}", _limit(examples, limit), root / "kb.txt")


def load_explagraphs(
    split: str = "test", limit: int | None = None, data_dir: str | Path | None = None
) -> Dataset:
    """ExplaGraphs in G-Retriever's format, rows of one split in the split file's order."""
    if split not in EXPLAGRAPHS_SPLITS:
        raise ConfigurationError(
            f"unknown ExplaGraphs split {split!r}; expected {EXPLAGRAPHS_SPLITS}"
        )
    root = _folder(data_dir, "explagraphs")
    rows_path = _need_file(
        root / "explagraphs_gretriever_format.jsonl", "ExplaGraphs rows", "explagraphs"
    )
    split_path = _need_file(
        root / "split" / f"{split}_indices.txt", "ExplaGraphs split", "explagraphs"
    )
    rows: dict[int, dict[str, Any]] = {}
    for number, line in text_lines(rows_path):
        if line.strip():
            row = _json_row(line, rows_path, number)
            rows[int(row["id"])] = row
    ids = [int(x) for x in split_path.read_text().split()]
    examples = []
    for row_id in ids[:limit] if limit is not None else ids:
        row = rows[row_id]
        names = {int(i): str(name) for i, name in row["nodes"]}
        triples = tuple(Triple(names[int(s)], str(r), names[int(d)]) for s, r, d in row["edges"])
        examples.append(
            EvalExample(
                id=f"explagraphs-{row_id}",
                question=EXPLAGRAPHS_QUESTION.format(arg1=row["arg1"], arg2=row["arg2"]),
                answers=(str(row["label"]),),
                triples=triples,
                meta={"split": split},
            )
        )
    return Dataset(f"explagraphs-{split}", _limit(examples, limit), None)


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence):
        return [str(v) for v in value]
    return [str(value)]


def _json_row(line: str, path: Path, number: int) -> Any:
    """One JSONL line, or a :class:`ConfigurationError` naming ``path:number``."""
    try:
        return json.loads(line)
    except (json.JSONDecodeError, RecursionError) as err:
        raise ConfigurationError(f"{path}:{number}: not JSON: {err}") from err


def _row_triples(value: Any, where: str) -> tuple[Triple, ...]:
    """A row's ``triples``: a list of ``[head, relation, tail]`` lists of names (strings, or
    integers as their text), checked as a graph file's are (:func:`check_triples`)."""
    if not isinstance(value, list) or not all(isinstance(t, list) for t in value):
        raise ConfigurationError(f"{where}: 'triples' must be [[head, relation, tail], ...]")
    rows = [
        [str(x) if isinstance(x, int) and not isinstance(x, bool) else x for x in t] for t in value
    ]
    try:
        return tuple(check_triples(rows))
    except GraphLoadError as err:
        raise ConfigurationError(f"{where}: 'triples': {err}") from None


def load_jsonl(
    path: str | Path, limit: int | None = None, graph_path: str | Path | None = None
) -> Dataset:
    """A user's own questions (see the module docstring for the fields)."""
    path = _need_file(Path(path), "JSONL dataset")
    examples: list[EvalExample] = []
    lines: dict[str, int] = {}  # id -> its first line
    repeated: dict[str, list[int]] = {}  # id -> its lines, when it repeats
    for number, line in text_lines(path):
        if not line.strip():
            continue
        row = _json_row(line, path, number)
        if not isinstance(row, dict) or not isinstance(row.get("question"), str):
            raise ConfigurationError(f"{path}:{number}: expected an object with 'question'")
        answers = _as_list(row.get("answers", row.get("answer")))
        if not answers:
            raise ConfigurationError(f"{path}:{number}: no 'answers'")
        triples = None
        if row.get("triples") is not None:
            triples = _row_triples(row["triples"], f"{path}:{number}")
        topics = _as_list(row.get("topic_entities")) or bracketed_entities(row["question"])
        identifier = _row_id(row, f"{path.stem}-{number}", f"{path}:{number}")
        if identifier in lines:
            repeated.setdefault(identifier, [lines[identifier]]).append(number)
        lines.setdefault(identifier, number)
        examples.append(
            EvalExample(
                id=identifier,
                question=row["question"],
                answers=tuple(answers),
                topic_entities=tuple(topics),
                triples=triples,
            )
        )
    if repeated:
        shown = ", ".join(
            f"{i!r} (lines {', '.join(map(str, n[:5]))})" for i, n in list(repeated.items())[:5]
        )
        more = f" and {len(repeated) - 5} more" if len(repeated) > 5 else ""
        raise ConfigurationError(
            f"{path}: repeated question ids: {shown}{more}; every question needs an id of its "
            "own (a repeated id would merge their records)"
        )
    return Dataset(path.stem, _limit(examples, limit), Path(graph_path) if graph_path else None)


def _row_id(row: dict[str, Any], default: str, where: str) -> str:
    """A JSONL row's ``id``: a non-empty string, or a whole number as its text; ``default``
    when the row has none. ``null``, ``""`` or another kind is a :class:`ConfigurationError`."""
    if "id" not in row:
        return default
    value = row["id"]
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value
    shown = "null" if value is None else repr(value)
    raise ConfigurationError(
        f"{where}: 'id' must be a non-empty string or a whole number, got {shown} (leave it "
        "out for the line's own id)"
    )


# -- PathQuestion, WebQSP, CWQ: {id, question, answers, topic_entities, meta} rows -------------


def _strings(row: dict[str, Any], key: str, where: str, *, empty: bool) -> tuple[str, ...]:
    """``row[key]`` as a tuple of strings; it must be a list of strings (non-empty unless
    ``empty``)."""
    value = row.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigurationError(f"{where}: {key!r} must be a list of non-empty strings")
    if not value and not empty:
        raise ConfigurationError(f"{where}: no {key!r}")
    return tuple(value)


def _benchmark_example(row: Any, where: str) -> EvalExample:
    """One ``{id, question, answers, topic_entities, meta}`` row as an :class:`EvalExample`."""
    if not isinstance(row, dict):
        raise ConfigurationError(f"{where}: expected a JSON object")
    for key in ("id", "question"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise ConfigurationError(f"{where}: {key!r} must be a non-empty string")
    meta = row.get("meta", {})
    if not isinstance(meta, dict):
        raise ConfigurationError(f"{where}: 'meta' must be an object")
    return EvalExample(
        id=row["id"],
        question=row["question"],
        answers=_strings(row, "answers", where, empty=False),
        topic_entities=_strings(row, "topic_entities", where, empty=True),
        meta=meta,
    )


def read_benchmark_rows(path: str | Path) -> list[EvalExample]:
    """The examples of a benchmark JSONL file, one ``{id, question, answers, topic_entities,
    meta}`` object a line (PathQuestion, WebQSP, CWQ), in file order.

    Parameters
    ----------
    path : str or Path
        The JSONL file; blank lines are skipped.

    Returns
    -------
    list of EvalExample
        ``question`` verbatim, ``answers`` and ``topic_entities`` as tuples, ``meta`` as given.

    Raises
    ------
    ConfigurationError
        For a missing file, or a malformed row or a repeated ``id`` (naming ``file:line``).
    """
    path = _need_file(Path(path), "benchmark questions")
    examples: list[EvalExample] = []
    first_line: dict[str, int] = {}
    for number, line in text_lines(path):
        if not line.strip():
            continue
        example = _benchmark_example(_json_row(line, path, number), f"{path}:{number}")
        if example.id in first_line:
            raise ConfigurationError(
                f"{path}:{number}: id {example.id!r} repeats line {first_line[example.id]}"
            )
        first_line[example.id] = number
        examples.append(example)
    return examples


def _pathquestion_set(name: str) -> str:
    """``"pq-3h"`` -> ``"PQ-3H"``; an unknown set is a :class:`ConfigurationError`."""
    for known in PATHQUESTION_SETS:
        if name.strip().upper() == known:
            return known
    raise ConfigurationError(
        f"unknown PathQuestion set {name!r}; expected one of {', '.join(PATHQUESTION_SETS)} "
        "(any letter case)"
    )


def load_pathquestion(
    name: str, limit: int | None = None, data_dir: str | Path | None = None
) -> Dataset:
    """PathQuestion dev questions of one set, in file order, with that set's own graph.

    Parameters
    ----------
    name : str
        ``"PQ-2H"``, ``"PQ-3H"``, ``"PQL-2H"`` or ``"PQL-3H"``, in any letter case.
    limit : int, optional
        Keep the first ``limit`` questions (>= 0).
    data_dir : str or Path, optional
        The folder holding ``dev_<NAME>.jsonl`` and ``kb_<NAME>.txt``; by default
        ``pathquestion/`` in :func:`default_data_dir`.

    Returns
    -------
    Dataset
        Named ``pathquestion-<NAME>`` (e.g. ``pathquestion-PQ-3H``); ``graph_path`` is
        ``kb_<NAME>.txt``; ``meta`` keeps ``path`` (the gold relation path), ``gold_paths``,
        ``answer_is_topic``, ...

    Raises
    ------
    ConfigurationError
        For an unknown set, a negative limit, a missing question file or a malformed row.
    """
    canonical = _pathquestion_set(name)
    root = _folder(data_dir, "pathquestion")
    examples = read_benchmark_rows(
        _need_file(
            root / f"dev_{canonical}.jsonl", f"PathQuestion {canonical} questions", "pathquestion"
        )
    )
    return Dataset(
        f"pathquestion-{canonical}", _limit(examples, limit), root / f"kb_{canonical}.txt"
    )


def _load_webqsp_cwq(name: str, limit: int | None, data_dir: str | Path | None) -> Dataset:
    root = _folder(data_dir, "webqsp_cwq")
    path = _need_file(root / f"dev_{name}.jsonl", f"{name} questions", "webqsp_cwq")
    return Dataset(name, _limit(read_benchmark_rows(path), limit), root / "kb.txt")


def load_webqsp(limit: int | None = None, data_dir: str | Path | None = None) -> Dataset:
    """WebQSP dev questions (the WebQSP/CWQ lite set), in file order.

    Parameters
    ----------
    limit : int, optional
        Keep the first ``limit`` questions (>= 0).
    data_dir : str or Path, optional
        The folder holding ``dev_webqsp.jsonl`` and ``kb.txt``; by default ``webqsp_cwq/`` in
        :func:`default_data_dir`.

    Returns
    -------
    Dataset
        Named ``webqsp``; ``graph_path`` is the Freebase evidence graph ``kb.txt`` shared with
        CWQ; ``meta`` keeps ``all_answers`` (the full gold list), ``answer_is_topic``,
        ``sparql``, ...

    Raises
    ------
    ConfigurationError
        For a negative limit, a missing question file or a malformed row.
    """
    return _load_webqsp_cwq("webqsp", limit, data_dir)


def load_cwq(limit: int | None = None, data_dir: str | Path | None = None) -> Dataset:
    """ComplexWebQuestions dev questions (the WebQSP/CWQ lite set), in file order.

    Parameters
    ----------
    limit : int, optional
        Keep the first ``limit`` questions (>= 0).
    data_dir : str or Path, optional
        The folder holding ``dev_cwq.jsonl`` and ``kb.txt``; by default ``webqsp_cwq/`` in
        :func:`default_data_dir`.

    Returns
    -------
    Dataset
        Named ``cwq``; ``graph_path`` is the evidence graph ``kb.txt`` shared with WebQSP; a
        question may have several topic entities; ``meta`` keeps ``all_answers``,
        ``compositionality_type``, ``webqsp_id``, ...

    Raises
    ------
    ConfigurationError
        For a negative limit, a missing question file or a malformed row.
    """
    return _load_webqsp_cwq("cwq", limit, data_dir)
