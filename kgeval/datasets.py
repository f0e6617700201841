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
- ``webqsp-no-topics[:N]`` and ``cwq-no-topics[:N]`` -- the same questions with their topic
  entities withheld (:func:`without_topics`).
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

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from kgcore.exceptions import ConfigurationError

# The names of the data types and loaders, importable from here as before the split.
from kgeval.examples import CROSS_GRAPH_SPECS as CROSS_GRAPH_SPECS
from kgeval.examples import EXPLAGRAPHS_QUESTION as EXPLAGRAPHS_QUESTION
from kgeval.examples import (
    EXPLAGRAPHS_SPLITS,
    METAQA_HOPS,
    NO_TOPICS,
    PATHQUESTION_SETS,
    SPEC_FORMS,
)
from kgeval.examples import Dataset as Dataset
from kgeval.examples import EvalExample as EvalExample
from kgeval.examples import check_example_ids as check_example_ids
from kgeval.examples import default_data_dir as default_data_dir
from kgeval.examples import text_lines as text_lines
from kgeval.loaders import load_cwq as load_cwq
from kgeval.loaders import load_explagraphs as load_explagraphs
from kgeval.loaders import load_jsonl as load_jsonl
from kgeval.loaders import load_metaqa as load_metaqa
from kgeval.loaders import load_pathquestion as load_pathquestion
from kgeval.loaders import load_webqsp as load_webqsp
from kgeval.loaders import read_benchmark_rows as read_benchmark_rows

# -- spec strings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    """A parsed spec: ``kind``, the name after it (``""`` if none) and the limit."""

    text: str
    kind: str
    name: str = ""
    limit: int | None = None


#: Kinds whose only field is the limit (``webqsp:N``), and kinds with a name first.
_LIMIT_ONLY = ("webqsp", "cwq", "webqsp-no-topics", "cwq-no-topics", "all")
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


def without_topics(data: Dataset) -> Dataset:
    """``data`` with its topic entities withheld (named ``<name>-no-topics``): a method links
    the question's entities from its text alone, as a user's question comes.

    >>> from kgeval.examples import EvalExample
    >>> data = without_topics(Dataset("webqsp", [EvalExample("1", "q?", ("A",), ("T",))]))
    >>> data.name, data.examples[0].topic_entities
    ('webqsp-no-topics', ())
    """
    examples = [dataclasses.replace(e, topic_entities=()) for e in data.examples]
    return Dataset(f"{data.name}{NO_TOPICS}", examples, data.graph_path)


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
    if spec.kind in ("webqsp-no-topics", "cwq-no-topics"):
        load = load_webqsp if spec.kind.startswith("webqsp") else load_cwq
        return without_topics(load(spec.limit, _inside(data_dir, "webqsp_cwq")))
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
