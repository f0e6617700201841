"""Evaluation datasets: MetaQA, PathQuestion, WebQSP, CWQ, ExplaGraphs and a JSONL format.

Every loader returns a :class:`Dataset`: examples (question, gold answers, optional topic
entities, optional per-question triples) and, for datasets with one shared graph, the path of
its triple file. The data is read from :func:`default_data_dir` (``$KGQA_DATA``, else
``../shared/data`` beside a source checkout, else the user data folder; see
:mod:`kgeval.data_sources`) unless ``data_dir`` names another folder; a missing file
is an error that says where data is looked for and how to get the benchmark.
:func:`load_dataset` reads a compact spec string (``N`` keeps the first N questions):

- ``metaqa:2hop`` or ``metaqa:2hop:10`` or ``metaqa:all:5`` (5 per hop, one dataset) --
  ``question with [topic]<TAB>a|b<TAB>type`` lines from ``<data>/metaqa/dev_2hop.txt``, graph
  ``<data>/metaqa/kb.txt``; the topic entity is the bracketed name.
- ``pathquestion:PQ-3H[:N]`` (PQ-2H, PQ-3H, PQL-2H, PQL-3H, any letter case) --
  ``<data>/pathquestion/dev_PQ-3H.jsonl``, each set with its own graph ``kb_PQ-3H.txt``.
- ``webqsp[:N]`` and ``cwq[:N]`` -- ``<data>/webqsp_cwq/dev_webqsp.jsonl`` and
  ``dev_cwq.jsonl``, one shared Freebase evidence graph ``<data>/webqsp_cwq/kb.txt``.
- ``explagraphs:test[:N]`` -- G-Retriever's ExplaGraphs rows and split; each question has its own
  graph and the answer is ``support`` or ``counter``.
- ``jsonl:PATH[:N]`` -- one object a line: ``question``, ``answers`` (a string or a list),
  optional ``id``, ``topic_entities`` and ``triples`` (``[[h, r, t], ...]``); pass the shared
  graph separately when rows carry no triples.

PathQuestion, WebQSP and CWQ rows are ``{"id", "question", "answers", "topic_entities",
"meta"}`` objects, kept as they are (``meta`` holds e.g. ``all_answers``, ``answer_is_topic``,
``path``). :func:`load_datasets` also reads shorthands for several datasets:
``pathquestion:all[:N]`` (the four PathQuestion sets) and ``all[:N]`` (the six sets of the
cross-graph report, :data:`CROSS_GRAPH_SPECS`), ``N`` questions each.

Example
-------
>>> import tempfile, pathlib, json
>>> path = pathlib.Path(tempfile.mkdtemp()) / "qa.jsonl"
>>> row = {"question": "who directed [Cleopatra]", "answers": "J"}
>>> _ = path.write_text(json.dumps(row) + "\\n")
>>> data = load_dataset(f"jsonl:{path}")
>>> data.examples[0].answers, data.examples[0].topic_entities
(('J',), ('Cleopatra',))
>>> [d.name for d in load_datasets(f"jsonl:{path}:1")]
['qa']
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kgeval.data_sources as data_sources
from kgcore.exceptions import ConfigurationError, GraphLoadError
from kgcore.graph.loaders import decode_line
from kgcore.graph.names import check_triples
from kgcore.linking import bracketed_entities
from kgcore.types import Triple

METAQA_HOPS = ("1hop", "2hop", "3hop")
PATHQUESTION_SETS = ("PQ-2H", "PQ-3H", "PQL-2H", "PQL-3H")
#: The six sets of the cross-graph report, in its order: what ``all[:N]`` expands to.
CROSS_GRAPH_SPECS = (
    "metaqa:2hop",
    "metaqa:3hop",
    "pathquestion:PQ-3H",
    "pathquestion:PQL-3H",
    "webqsp",
    "cwq",
)
#: Every spec form :func:`load_datasets` accepts (:func:`load_dataset`: all but the last two).
SPEC_FORMS = (
    "metaqa:1hop|2hop|3hop|all[:N]",
    "pathquestion:PQ-2H|PQ-3H|PQL-2H|PQL-3H[:N]",
    "webqsp[:N]",
    "cwq[:N]",
    "explagraphs:train|val|test[:N]",
    "jsonl:PATH[:N]",
    "pathquestion:all[:N]",
    "all[:N]",
)
EXPLAGRAPHS_SPLITS = ("train", "val", "test")
EXPLAGRAPHS_QUESTION = (
    "Argument 1: {arg1}\nArgument 2: {arg2}\nQuestion: Do argument 1 and argument 2 support or "
    "counter each other? Answer in one word in the form of 'support' or 'counter'."
)


@dataclass(frozen=True)
class EvalExample:
    """One question with its gold answers."""

    id: str
    question: str
    answers: tuple[str, ...]
    topic_entities: tuple[str, ...] = ()
    triples: tuple[Triple, ...] | None = None
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


@dataclass
class Dataset:
    """A named list of examples and, when they share one, the graph's triple file."""

    name: str
    examples: list[EvalExample]
    graph_path: Path | None = None

    def __len__(self) -> int:
        return len(self.examples)


def check_example_ids(name: str, examples: Sequence[EvalExample]) -> None:
    """Refuse questions whose ids are not non-empty strings or repeat: their records would
    merge (a trace keeps one record per id), so a run of 5 questions would report 3.

    >>> check_example_ids("qa", [EvalExample("1", "a?", ("x",)), EvalExample("1", "b?", ("y",))])
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: dataset 'qa': repeated question ids: '1' (questions 1, ...
    """
    bad = [i for i, e in enumerate(examples, start=1) if not isinstance(e.id, str) or not e.id]
    seen: dict[str, list[int]] = {}
    for index, example in enumerate(examples, start=1):
        if isinstance(example.id, str) and example.id:
            seen.setdefault(example.id, []).append(index)
    repeated = {i: places for i, places in seen.items() if len(places) > 1}
    parts = []
    if bad:
        shown = ", ".join(f"{examples[i - 1].id!r} (question {i})" for i in bad[:5])
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        parts.append(f"ids that are not non-empty strings: {shown}{more}")
    if repeated:
        shown = ", ".join(
            f"{i!r} (questions {', '.join(map(str, places[:5]))})"
            for i, places in list(repeated.items())[:5]
        )
        more = f" and {len(repeated) - 5} more" if len(repeated) > 5 else ""
        parts.append(f"repeated question ids: {shown}{more}")
    if parts:
        raise ConfigurationError(
            f"dataset {name!r}: {'; '.join(parts)}; every question needs an id of its own"
        )


def default_data_dir() -> Path:
    """``$KGQA_DATA``, else ``../shared/data`` beside a source checkout, else the user data
    folder (:func:`kgeval.data_sources.default_data_dir`)."""
    return data_sources.default_data_dir()


def _folder(data_dir: str | Path | None, name: str) -> Path:
    """A loader's folder: ``data_dir`` itself, or ``name`` in :func:`default_data_dir`."""
    return Path(data_dir) if data_dir else default_data_dir() / name


def _need_file(path: Path, what: str, benchmark: str | None = None) -> Path:
    """``path`` if it is a file; else an error naming it and, for a benchmark's file, where
    data is looked for and how to get the benchmark."""
    if not path.is_file():
        hint = f"; {data_sources.missing_data_hint(benchmark)}" if benchmark else ""
        raise ConfigurationError(f"{what} not found: {path}{hint}")
    return path


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of a UTF-8 dataset file (a byte-order mark is skipped), lines
    split at ``\\n`` only; a binary file (NUL bytes) or a line that is not UTF-8 is a
    :class:`ConfigurationError` naming ``path:line``, not a ``UnicodeDecodeError``.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qa.jsonl"
    >>> _ = path.write_bytes(bytes([0x89, 0x50, 0x4E, 0x47]))
    >>> try:
    ...     list(text_lines(path))
    ... except ConfigurationError as err:
    ...     print(str(err).split("qa.jsonl:")[1])
    1: not UTF-8 text (byte 0x89 at column 1); save the file as UTF-8
    """
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            yield number, decode_line(raw, path, number, ConfigurationError, "text file")


def _limit(examples: list[EvalExample], limit: int | None) -> list[EvalExample]:
    if limit is not None and limit < 0:
        raise ConfigurationError("a dataset limit must be >= 0")
    return examples if limit is None else examples[:limit]


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


# -- spec strings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    """A parsed spec: ``kind``, the name after it (``""`` if none) and the limit."""

    text: str
    kind: str
    name: str = ""
    limit: int | None = None


#: Kinds whose only field is the limit (``webqsp:N``), and kinds with a name first.
_LIMIT_ONLY = ("webqsp", "cwq", "all")
_NAMED = ("metaqa", "pathquestion", "explagraphs")
_NAMED_PART = {"metaqa": "split", "pathquestion": "set", "explagraphs": "split"}
_NAMED_FORMS = {
    "metaqa": "|".join((*METAQA_HOPS, "all")),
    "pathquestion": "|".join((*PATHQUESTION_SETS, "all")),
    "explagraphs": "|".join(EXPLAGRAPHS_SPLITS),
}


def _unknown_spec(spec: str) -> ConfigurationError:
    return ConfigurationError(
        f"unknown dataset spec {spec!r}; expected one of: {', '.join(SPEC_FORMS)}"
    )


def _parse_limit(text: str, spec: str) -> int:
    """``"10"`` -> 10; anything but a whole number >= 0 is a :class:`ConfigurationError`."""
    if re.fullmatch(r"[0-9]+", text.strip()):
        return int(text)
    raise ConfigurationError(
        f"bad limit {text!r} in dataset spec {spec!r}: expected a whole number >= 0 "
        "(the number of questions kept), as in webqsp:10 or metaqa:2hop:10"
    )


def _parse_jsonl(spec: str, rest: str) -> _Spec:
    """``jsonl:PATH[:N]``: a last field is the limit when it is an integer, or when the path
    before it is a file and the whole is not (``qa.jsonl:x``); otherwise it is part of PATH."""
    path, limit = rest, None
    head, sep, tail = rest.rpartition(":")
    if sep and re.fullmatch(r"\s*[-+]?[0-9]+\s*", tail):
        path, limit = head, _parse_limit(tail, spec)
    elif sep and Path(head).is_file() and not Path(rest).exists():
        _parse_limit(tail, spec)  # raises: not a number
    if not path.strip():
        raise ConfigurationError("jsonl dataset needs a path: jsonl:PATH[:N]")
    return _Spec(spec, "jsonl", path, limit)


def _parse_spec(spec: str) -> _Spec:
    """Split a spec into kind, name and limit (checked); the kind is read in any case."""
    kind, _, rest = spec.partition(":")
    kind = kind.strip().lower()
    if kind == "jsonl":
        return _parse_jsonl(spec, rest)
    fields = rest.split(":") if rest else []
    if kind in _LIMIT_ONLY and len(fields) <= 1:
        return _Spec(spec, kind, "", _parse_limit(fields[0], spec) if fields else None)
    if kind in _NAMED and len(fields) <= 2:
        name = fields[0].strip() if fields else ""
        if re.fullmatch(r"[-+]?[0-9]+", name):  # metaqa:-1, metaqa:5: a limit without a split
            raise ConfigurationError(
                f"dataset spec {spec!r} gives {name!r} where the {_NAMED_PART[kind]} goes; "
                f"write {kind}:{_NAMED_FORMS[kind]}:N (N, the number of questions kept, >= 0)"
            )
        return _Spec(spec, kind, name, _parse_limit(fields[1], spec) if len(fields) == 2 else None)
    raise _unknown_spec(spec)


def _expand(spec: _Spec) -> list[str] | None:
    """The specs a shorthand stands for (``all``, ``pathquestion:all``), or None."""
    if spec.kind == "all":
        parts = list(CROSS_GRAPH_SPECS)
    elif spec.kind == "pathquestion" and spec.name.lower() == "all":
        parts = [f"pathquestion:{name}" for name in PATHQUESTION_SETS]
    else:
        return None
    return parts if spec.limit is None else [f"{p}:{spec.limit}" for p in parts]


def _inside(data_dir: str | Path | None, name: str) -> Path | None:
    """The loader folder ``name`` in a top-level ``data_dir`` (None: the loader's default)."""
    return Path(data_dir) / name if data_dir else None


def _load_metaqa_spec(spec: _Spec, data_dir: str | Path | None) -> Dataset:
    root = _inside(data_dir, "metaqa")
    if spec.name == "all":
        parts = [load_metaqa(h, spec.limit, root) for h in METAQA_HOPS]
        examples = [e for p in parts for e in p.examples]
        return Dataset("metaqa-all", examples, parts[0].graph_path)
    return load_metaqa(spec.name or "1hop", spec.limit, root)


def _load_pathquestion_spec(spec: _Spec, data_dir: str | Path | None) -> Dataset:
    if not spec.name:
        raise ConfigurationError(
            f"pathquestion needs a set: pathquestion:{'|'.join(PATHQUESTION_SETS)}|all[:N]"
        )
    return load_pathquestion(spec.name, spec.limit, _inside(data_dir, "pathquestion"))


def _load_one(spec: _Spec, data_dir: str | Path | None) -> Dataset:
    """The dataset of a parsed spec that names exactly one."""
    if spec.kind == "metaqa":
        return _load_metaqa_spec(spec, data_dir)
    if spec.kind == "pathquestion":
        return _load_pathquestion_spec(spec, data_dir)
    if spec.kind == "webqsp":
        return load_webqsp(spec.limit, _inside(data_dir, "webqsp_cwq"))
    if spec.kind == "cwq":
        return load_cwq(spec.limit, _inside(data_dir, "webqsp_cwq"))
    if spec.kind == "explagraphs":
        return load_explagraphs(spec.name or "test", spec.limit, _inside(data_dir, "explagraphs"))
    if spec.kind == "jsonl":
        return load_jsonl(spec.name, spec.limit)
    raise _unknown_spec(spec.text)


def load_dataset(spec: str, data_dir: str | Path | None = None) -> Dataset:
    """One dataset from a spec string such as ``metaqa:2hop:10`` or ``webqsp:5``.

    Parameters
    ----------
    spec : str
        ``metaqa:1hop|2hop|3hop|all[:N]``, ``pathquestion:PQ-2H|PQ-3H|PQL-2H|PQL-3H[:N]``,
        ``webqsp[:N]``, ``cwq[:N]``, ``explagraphs:SPLIT[:N]`` or ``jsonl:PATH[:N]`` (see the
        module docstring); ``N`` keeps the first N questions (``metaqa:all:N``: N per hop).
    data_dir : str or Path, optional
        The top data folder (holding ``metaqa/``, ``pathquestion/``, ``webqsp_cwq/``, ...); by
        default :func:`default_data_dir`.

    Returns
    -------
    Dataset

    Raises
    ------
    ConfigurationError
        For an unknown spec (the message lists every form), a bad limit, an unknown split or
        set, a missing file, or a shorthand for several datasets (``all``,
        ``pathquestion:all``: use :func:`load_datasets`).
    """
    parsed = _parse_spec(spec)
    parts = _expand(parsed)
    if parts is not None:
        raise ConfigurationError(
            f"dataset spec {spec!r} names {len(parts)} datasets ({', '.join(parts)}); "
            "load them with load_datasets() (kgqa eval --data accepts it) and evaluate each"
        )
    return _load_one(parsed, data_dir)


def load_datasets(spec: str, data_dir: str | Path | None = None) -> list[Dataset]:
    """The datasets of a spec string, shorthands for several datasets included.

    Parameters
    ----------
    spec : str
        Any :func:`load_dataset` spec (a one-element list), or a shorthand:
        ``pathquestion:all[:N]`` (PQ-2H, PQ-3H, PQL-2H, PQL-3H, each with its own graph) or
        ``all[:N]`` (:data:`CROSS_GRAPH_SPECS`: metaqa:2hop, metaqa:3hop, pathquestion:PQ-3H,
        pathquestion:PQL-3H, webqsp, cwq), ``N`` questions each. ``metaqa:all`` stays one
        dataset.
    data_dir : str or Path, optional
        The top data folder; by default :func:`default_data_dir`.

    Returns
    -------
    list of Dataset
        In the shorthand's order.

    Raises
    ------
    ConfigurationError
        As :func:`load_dataset`.
    """
    parsed = _parse_spec(spec)
    parts = _expand(parsed)
    if parts is None:
        return [_load_one(parsed, data_dir)]
    return [_load_one(_parse_spec(part), data_dir) for part in parts]
