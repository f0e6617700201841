"""The evaluation's data types and file helpers: :class:`EvalExample`, :class:`Dataset`, the
dataset names, and where data files are looked for (:func:`default_data_dir`).

:mod:`kgeval.loaders` reads each benchmark's files into these types and
:mod:`kgeval.datasets` reads the spec strings (``metaqa:2hop:10``) that name them.

Example
-------
>>> EvalExample("1", "who directed [Heat]", ("Michael Mann",)).answers
('Michael Mann',)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kgeval.data_sources as data_sources
from kgcore.exceptions import ConfigurationError
from kgcore.graph.loaders import decode_line
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
    "webqsp-no-topics[:N]",
    "cwq-no-topics[:N]",
    "explagraphs:train|val|test[:N]",
    "jsonl:PATH[:N]",
    "pathquestion:all[:N]",
    "all[:N]",
)
EXPLAGRAPHS_SPLITS = ("train", "val", "test")
#: The name suffix of a dataset asked without its topic entities (``webqsp-no-topics``).
NO_TOPICS = "-no-topics"
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
