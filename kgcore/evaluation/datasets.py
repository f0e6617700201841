"""Evaluation datasets: MetaQA, ExplaGraphs (G-Retriever format) and a generic JSONL format.

Every loader returns a :class:`Dataset`: examples (question, gold answers, optional topic
entities, optional per-question triples) and, for datasets with one shared graph, the path of
its triple file. :func:`load_dataset` reads a compact spec string:

- ``metaqa:2hop`` or ``metaqa:2hop:10`` (the first 10) or ``metaqa:all:5`` (5 per hop) --
  ``question with [topic]<TAB>a|b<TAB>type`` lines from ``<data>/metaqa/dev_2hop.txt``, graph
  ``<data>/metaqa/kb.txt``; the topic entity is the bracketed name.
- ``explagraphs:test[:N]`` -- G-Retriever's ExplaGraphs rows and split; each question has its own
  graph and the answer is ``support`` or ``counter``.
- ``jsonl:PATH[:N]`` -- one object a line: ``question``, ``answers`` (a string or a list),
  optional ``id``, ``topic_entities`` and ``triples`` (``[[h, r, t], ...]``); pass the shared
  graph separately when rows carry no triples.

Example
-------
>>> import tempfile, pathlib, json
>>> path = pathlib.Path(tempfile.mkdtemp()) / "qa.jsonl"
>>> row = {"question": "who directed [Cleopatra]", "answers": "J"}
>>> _ = path.write_text(json.dumps(row) + "\\n")
>>> data = load_dataset(f"jsonl:{path}")
>>> data.examples[0].answers, data.examples[0].topic_entities
(('J',), ('Cleopatra',))
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgcore.linking import bracketed_entities
from kgcore.local_models import repo_root
from kgcore.types import Triple

METAQA_HOPS = ("1hop", "2hop", "3hop")
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


def default_data_dir() -> Path:
    """``../shared/data`` beside the project root (``KGQA_DATA`` overrides)."""
    import os

    env = os.environ.get("KGQA_DATA")
    return Path(env) if env else repo_root().parent / "shared" / "data"


def _need_file(path: Path, what: str) -> Path:
    if not path.is_file():
        raise ConfigurationError(f"{what} not found: {path}")
    return path


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
    root = Path(data_dir) if data_dir else default_data_dir() / "metaqa"
    path = _need_file(root / f"dev_{hop}.txt", "MetaQA questions")
    examples: list[EvalExample] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
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
    root = Path(data_dir) if data_dir else default_data_dir() / "explagraphs"
    rows_path = _need_file(root / "explagraphs_gretriever_format.jsonl", "ExplaGraphs rows")
    split_path = _need_file(root / "split" / f"{split}_indices.txt", "ExplaGraphs split")
    rows: dict[int, dict[str, Any]] = {}
    with rows_path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
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


def load_jsonl(
    path: str | Path, limit: int | None = None, graph_path: str | Path | None = None
) -> Dataset:
    """A user's own questions (see the module docstring for the fields)."""
    path = _need_file(Path(path), "JSONL dataset")
    examples: list[EvalExample] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise ConfigurationError(f"{path}:{number}: not JSON: {err}") from err
            if not isinstance(row, dict) or not isinstance(row.get("question"), str):
                raise ConfigurationError(f"{path}:{number}: expected an object with 'question'")
            answers = _as_list(row.get("answers", row.get("answer")))
            if not answers:
                raise ConfigurationError(f"{path}:{number}: no 'answers'")
            triples = None
            if row.get("triples") is not None:
                try:
                    triples = tuple(Triple(*(str(x) for x in t)) for t in row["triples"])
                except TypeError as err:
                    raise ConfigurationError(
                        f"{path}:{number}: 'triples' must be [[head, relation, tail], ...]"
                    ) from err
            topics = _as_list(row.get("topic_entities")) or bracketed_entities(row["question"])
            examples.append(
                EvalExample(
                    id=str(row.get("id", f"{path.stem}-{number}")),
                    question=row["question"],
                    answers=tuple(answers),
                    topic_entities=tuple(topics),
                    triples=triples,
                )
            )
    return Dataset(path.stem, _limit(examples, limit), Path(graph_path) if graph_path else None)


def _split_limit(spec: str) -> tuple[str, int | None]:
    head, sep, tail = spec.rpartition(":")
    if sep and tail.isdigit():
        return head, int(tail)
    return spec, None


def load_dataset(spec: str, data_dir: str | Path | None = None) -> Dataset:
    """A dataset from a spec string such as ``metaqa:2hop:10`` (see the module docstring)."""
    kind, _, rest = spec.partition(":")
    rest, limit = _split_limit(rest)
    if kind == "metaqa":
        root = Path(data_dir) / "metaqa" if data_dir else None
        if rest == "all":
            parts = [load_metaqa(h, limit, root) for h in METAQA_HOPS]
            examples = [e for p in parts for e in p.examples]
            return Dataset("metaqa-all", examples, parts[0].graph_path)
        return load_metaqa(rest or "1hop", limit, root)
    if kind == "explagraphs":
        root = Path(data_dir) / "explagraphs" if data_dir else None
        return load_explagraphs(rest or "test", limit, root)
    if kind == "jsonl":
        if not rest:
            raise ConfigurationError("jsonl dataset needs a path: jsonl:PATH[:N]")
        return load_jsonl(rest, limit)
    raise ConfigurationError(
        f"unknown dataset spec {spec!r}; expected metaqa:HOP[:N], explagraphs:SPLIT[:N] "
        "or jsonl:PATH[:N]"
    )
