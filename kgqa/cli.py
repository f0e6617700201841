"""The ``kgqa`` command line.

``kgqa ask "QUESTION" --kg PATH --llm local`` answers a question with FastToG (or any method:
``--method tog``, ``--method gretriever``, ...) and prints the answer and what it was found
with (FastToG: the community chains); while it runs, each step (the communities offered and
picked, each reasoning step's answer) is printed on stderr as it happens (``--quiet``: none),
and a picture (``--draw``) is drawn after the answer is printed. ``--set KEY=VALUE`` sets any
option of the method, as for ``kgqa eval``; the engine is built by
:func:`kgcore.builder.build_method`, as everywhere else.

Example
-------
.. code-block:: console

    $ kgqa ask "what films did the director of [Cleopatra] direct" \\
          --kg ../shared/data/metaqa/kb.txt --llm local
    $ kgqa ask "who directed [Cleopatra]" --method gretriever --set k_nodes=5 \\
          --kg ../shared/data/metaqa/kb.txt
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any

from kgcore.builder import build_method, check_options, get_method, method_names
from kgcore.community.detection import ALGORITHMS
from kgcore.exceptions import ConfigurationError, KGRetrieverError, MissingDependencyError
from kgcore.methods.fasttog import FastToGConfig, FastToGResult
from kgcore.methods.fasttog.config import FALLBACKS, FIRST_CHOICES, LCS_FIELDS
from kgcore.methods.kernel import BUDGET_KEY, listening_to_steps
from kgcore.methods.result import MethodResult
from kgcore.validation import check_question, check_topic_entities
from kgqa.common import (
    add_llm_arguments,
    kg_argument,
    llm_for,
    llm_retry,
    missing_extra_message,
    open_graph,
    preset_help,
)
from kgqa.door import OneLineParser, check_ask
from kgqa.eval import add_eval_subcommand, parse_option
from kgqa.g2t import add_subcommand as add_g2t_subcommand
from kgqa.gretriever import add_subcommand as add_gretriever_subcommand
from kgqa.help import DefaultsHelpFormatter, package_version
from kgqa.load import add_subcommand as add_load_subcommand
from kgqa.models import add_subcommand as add_models_subcommand
from kgqa.paths import add_subcommand as add_paths_subcommand
from kgqa.progress import step_printer
from kgqa.schema import add_subcommands as add_schema_subcommands


def require_module(module: str, extra: str) -> None:
    """Fail at once, naming the extra, when an optional module a chosen option needs is absent
    (found without importing it, so the check costs nothing).

    >>> require_module("json", "none")
    >>> try:
    ...     require_module("no_such_module_here", "visualize")
    ... except MissingDependencyError as err:
    ...     print(err)
    'no_such_module_here' is required for this feature: pip install 'kg-retrievers[visualize]'
    """
    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(module, extra)


def format_method_result(result: MethodResult) -> str:
    """The answer, what it was found with (the method's context) and the run's figures, for a
    terminal: the printout of a method other than FastToG."""
    lines = [f"Answer: {result.answer}" + ("" if result.answered else " (no answer found)")]
    if result.context:
        lines.append("Context:")
        lines.extend(f"  {line}" for line in str(result.context).splitlines())
    tokens = (
        f", tokens {result.prompt_tokens} in / {result.completion_tokens} out"
        if result.prompt_tokens is not None
        else ""
    )
    lines.append(
        f"method {result.method}, depth {result.depth}, LLM calls {result.llm_calls}{tokens}, "
        f"fallback {'yes' if result.fell_back else 'no'}, total {result.total_seconds:.1f}s"
    )
    if BUDGET_KEY in result.extra:
        lines.append(f"stopped by the cost cap: {result.extra[BUDGET_KEY]}")
    return "\n".join(lines)


def format_result(result: MethodResult) -> str:
    """The answer, the chains and the run's figures, for a terminal (another method than
    FastToG: :func:`format_method_result`)."""
    if not isinstance(result, FastToGResult):
        return format_method_result(result)
    lines = [f"Answer: {result.answer}" + ("" if result.answered else " (no answer found)")]
    path = result.extra.get("path")
    if isinstance(path, dict):
        capped = ", fan-out capped" if path.get("capped") else ""
        lines.append(
            f"Path: from {path.get('topic')}: {path.get('label')} "
            f"({path.get('reached')} reached{capped})"
        )
    if result.start is not None:  # the facts reasoning read first often decide the answer
        lines.append(f"Start: {', '.join(result.start.nodes)}")
        lines.append(f"      {result.start.text}")
    for index, chain in enumerate(result.chains, start=1):
        lines.append(f"Chain {index}:")
        for community in chain:
            lines.append(f"  [depth {community.depth}] {{{', '.join(community.nodes)}}}")
            lines.append(f"      {community.text}")
    tokens = (
        f", tokens {result.prompt_tokens} in / {result.completion_tokens} out"
        if result.prompt_tokens is not None
        else ""
    )
    lines.append(
        f"depth {result.depth}, LLM calls {result.llm_calls}{tokens}, "
        f"first choice {result.extra.get('first_choice', 'llm')}, "
        f"fallback {'yes' if result.fell_back else 'no'}, "
        f"graph {result.graph_seconds:.2f}s, LLM {result.llm_seconds:.1f}s, "
        f"total {result.total_seconds:.1f}s"
    )
    if BUDGET_KEY in result.extra:
        lines.append(f"stopped by the cost cap: {result.extra[BUDGET_KEY]}")
    return "\n".join(lines)


#: ``kgqa ask`` option -> the FastToG setting it sets.
ASK_SETTINGS = {
    "width": "width",
    "depth": "max_depth",
    "max_community_size": "max_community_size",
    "algorithm": "algorithm",
    "seed": "seed",
    "fallback": "fallback",
    "first_choice": "first_choice",
    "chain_choice": "chain_choice",
}


#: ``kgqa ask``'s FastToG options: (option, type, choices, meaning); their defaults are the
#: config's (:func:`setting_default`), so the help and the config never disagree.
ASK_OPTIONS: tuple[tuple[str, type, tuple[str, ...] | None, str], ...] = (
    ("width", int, None, "W, reasoning chains"),
    ("depth", int, None, "D_max, maximum depth"),
    ("max_community_size", int, None, "M, nodes per community at most"),
    ("algorithm", str, ALGORITHMS, "community detection"),
    ("fallback", str, FALLBACKS, "how to answer after D_max"),
    ("seed", int, None, "seeds every random choice (>= 0)"),
    (
        "first_choice",
        str,
        FIRST_CHOICES,
        "how the first W communities are chosen: auto (here: by similarity with the offline "
        "all-MiniLM-L6-v2, or by the LLM without the embeddings extra), llm (the paper's), "
        "similarity",
    ),
    ("chain_choice", str, FIRST_CHOICES, "how a chain's next community is chosen (as above)"),
)


#: The paper's values of the settings it fixes (Liang et al., AAAI 2025).
PAPER_VALUES: dict[str, object] = {"width": 3, "max_depth": 5, "max_community_size": 4}


def default_note(setting: str) -> str:
    """The one parenthesis an option's help ends with: the default, and the paper's value when
    the paper fixes one.

    >>> default_note("width"), default_note("algorithm")
    ("(default: 3, the paper's)", '(default: louvain)')
    """
    default = setting_default(setting)
    if setting not in PAPER_VALUES:
        return f"(default: {default})"
    paper = PAPER_VALUES[setting]
    if paper == default:
        return f"(default: {default}, the paper's)"
    return f"(default: {default}; the paper: {paper})"


def setting_default(setting: str) -> object:
    """The default of a FastToG setting (an LCS one included), read from the config.

    >>> setting_default("max_depth"), setting_default("algorithm")
    (5, 'louvain')
    """
    config = FastToGConfig()
    return getattr(config.lcs if setting in LCS_FIELDS else config, setting)


def ask_options(args: argparse.Namespace) -> dict[str, Any]:
    """The method options of ``kgqa ask``: its option flags (``--width 2`` is ``width=2``,
    ``--depth`` is ``max_depth``), the cost cap's, then each ``--set KEY=VALUE``; a name given
    twice with two values is an error (checked by the builder)."""
    options: dict[str, Any] = {
        setting: getattr(args, option)
        for option, setting in ASK_SETTINGS.items()
        if getattr(args, option, None) is not None
    }
    for name in ("max_llm_calls", "max_prompt_tokens"):
        if getattr(args, name, None) is not None:
            options[name] = getattr(args, name)
    for text in getattr(args, "set", None) or []:
        key, value = parse_option(text)
        if key in options and options[key] != value:
            raise ConfigurationError(f"{key} is given twice, as {options[key]!r} and {value!r}")
        options[key] = value
    return options


def _ask(args: argparse.Namespace) -> int:
    if args.draw:
        from kgcore.visualize.render import check_image_path

        check_image_path(args.draw)  # a wrong file name fails before the slow part
        require_module("matplotlib", "visualize")  # and so does a missing extra
    spec = get_method(args.method)
    options = ask_options(args)
    check_options(spec.name, options, preset=args.preset)  # before the graph is loaded
    check_question(args.question)  # and so do a bad question and bad topic entities
    check_topic_entities(args.entity)
    args.needs_llm = spec.needs_llm
    check_ask(args)  # and the graph file, the server, the model's extra and file
    started = time.perf_counter()
    store = open_graph(args.kg, progress=not args.quiet) if spec.needs_graph else None
    loaded = time.perf_counter() - started
    engine = build_method(spec.name, store, preset=args.preset, options=options)
    if spec.needs_llm:
        llm = llm_for(args.llm, args.sampling, run_name_prefix=spec.name)
    else:
        from kgeval.harness import NoLLM

        llm = NoLLM()
    with ExitStack() as progress:
        if not args.quiet:  # each step on stderr as it happens
            progress.enter_context(listening_to_steps(step_printer(sys.stderr)))
        result = engine.run(args.question, llm, args.entity or None, retry=llm_retry(args))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, default=list), flush=True)
    else:
        print(format_result(result), flush=True)
        if not args.quiet and store is not None:
            print(f"(graph loaded in {loaded:.1f}s)", file=sys.stderr)
    if args.draw:  # after the answer: a failed drawing does not lose it
        print(f"(picture: {result.draw(args.draw)})", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``kgqa`` parser with every subcommand."""
    parser = OneLineParser(prog="kgqa", description="Knowledge-graph question answering")
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s (kg-retrievers) {package_version()}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    ask = commands.add_parser(
        "ask",
        help="answer a question with FastToG (or --method)",
        description="Answer a question with FastToG or another method (--method); settings "
        "left out take the method's defaults. The option flags below are FastToG's (--width "
        "and --depth also ToG's); --set KEY=VALUE sets any option of the method, as for "
        "kgqa eval.",
        formatter_class=DefaultsHelpFormatter,
    )
    ask.add_argument("question", help="the question; write topic entities in [brackets]")
    ask.add_argument(
        "--kg",
        type=kg_argument,
        help="a triple file (h|r|t .txt, .tsv, .csv, .jsonl), a Neo4j URI "
        "(bolt://user@host:7687/db, neo4j+s://...) or 'neo4j' (NEO4J_* variables); "
        "default: $KGQA_KG",
    )
    add_llm_arguments(ask)
    ask.add_argument("--entity", action="append", help="topic entity (repeatable)")
    ask.add_argument(
        "--method",
        default="fasttog",
        choices=method_names(),
        metavar="NAME",
        help=f"the method, one of {', '.join(method_names())} (default: %(default)s)",
    )
    ask.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a method option, repeatable: a setting (width=2, paths.max_hops=0, k_nodes=5) "
        "or the cost cap (max_llm_calls=4), as kgqa eval --set takes it",
    )
    ask.add_argument("--preset", metavar="NAME", help=preset_help())
    for option, kind, choices, meaning in ASK_OPTIONS:
        setting = ASK_SETTINGS[option]
        ask.add_argument(
            "--" + option.replace("_", "-"),
            type=kind,
            choices=choices,
            help=f"{meaning} {default_note(setting)}",
        )
    for option, meaning in (
        ("max_llm_calls", "LLM calls per question at most"),
        ("max_prompt_tokens", "prompt tokens per question at most (reported, else 4 chars each)"),
    ):
        ask.add_argument(
            "--" + option.replace("_", "-"),
            type=int,
            metavar="N",
            help=f"cost cap: {meaning}; the run then stops with its best answer so far "
            "(default: no cap)",
        )
    ask.add_argument("--json", action="store_true", help="print the whole result as JSON")
    ask.add_argument("--draw", metavar="IMAGE", help="draw the chains to IMAGE (.png/.svg/.pdf)")
    ask.add_argument(
        "--quiet", action="store_true", help="no progress output (each step, on stderr)"
    )
    ask.set_defaults(handler=_ask)
    add_eval_subcommand(commands)
    add_load_subcommand(commands)
    add_schema_subcommands(commands)
    add_g2t_subcommand(commands)
    add_models_subcommand(commands)
    add_gretriever_subcommand(commands)
    add_paths_subcommand(commands)
    return parser


#: The exit status of a command stopped by Ctrl-C (SIGINT): 128 + 2, the shells' convention.
INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``kgqa``: 0 when done, 2 with one line on stderr for bad input (or a file that
    cannot be read or written), 130 with one line for Ctrl-C (what ``kgqa eval`` wrote so far
    is kept whole, and the same command resumes from it)."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except KGRetrieverError as err:
        print(f"kgqa: error: {one_line(err)}", file=sys.stderr)
        return 2
    except ImportError as err:
        print(f"kgqa: error: {missing_extra_message(err)}", file=sys.stderr)
        return 2
    except OSError as err:  # a file or folder the checks could not foresee (a full disk)
        print(f"kgqa: error: {one_line(err)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "kgqa: interrupted; the records written so far are kept (kgqa eval resumes from "
            "them when run again)",
            file=sys.stderr,
        )
        return INTERRUPTED


def one_line(error: BaseException) -> str:
    """An error's message on one line (a server's message may hold line breaks).

    >>> one_line(ValueError("first" + chr(10) + "  second"))
    'first second'
    """
    return " ".join(str(error).split())


if __name__ == "__main__":
    sys.exit(main())
