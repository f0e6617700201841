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

from kgcore.community.detection import ALGORITHMS
from kgcore.exceptions import KGRetrieverError
from kgcore.graph.store import GraphStore
from kgcore.methods.fasttog import FastToG, FastToGConfig, FastToGResult
from kgcore.methods.fasttog.config import FALLBACKS
from kgqa.eval import add_eval_subcommand
from kgqa.load import add_subcommand as add_load_subcommand


def open_graph(spec: str | None, progress: bool = True) -> GraphStore:
    """A graph store for a triple file path (or, once available, a ``neo4j://`` URI)."""
    spec = spec or os.environ.get("KGQA_KG")
    if not spec:
        raise KGRetrieverError("no knowledge graph: pass --kg PATH or set KGQA_KG")
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
        f"fallback {'yes' if result.fell_back else 'no'}, "
        f"graph {result.graph_seconds:.2f}s, LLM {result.llm_seconds:.1f}s, "
        f"total {result.total_seconds:.1f}s"
    )
    return "\n".join(lines)


def _config_from(args: argparse.Namespace) -> FastToGConfig:
    return FastToGConfig().with_overrides(
        width=args.width,
        max_depth=args.depth,
        max_community_size=args.max_community_size,
        algorithm=args.algorithm,
        seed=args.seed,
        fallback=args.fallback,
    )


def _ask(args: argparse.Namespace) -> int:
    from langchain_fasttog.llm import LangChainLLM
    from langchain_fasttog.models import resolve_chat_model

    if args.draw:
        from kgcore.visualize.render import check_image_path

        check_image_path(args.draw)  # a wrong file name fails before the slow part
    started = time.perf_counter()
    store = open_graph(args.kg, progress=not args.quiet)
    loaded = time.perf_counter() - started
    engine = FastToG(store, _config_from(args))
    llm = LangChainLLM(resolve_chat_model(args.llm))
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kgqa", description="Knowledge-graph question answering")
    commands = parser.add_subparsers(dest="command", required=True)
    ask = commands.add_parser("ask", help="answer a question with FastToG")
    ask.add_argument("question")
    ask.add_argument("--kg", help="triple file (h|r|t, .tsv, .csv, .jsonl) or KGQA_KG")
    ask.add_argument("--llm", default="local", help="local | local-small | provider:model")
    ask.add_argument("--entity", action="append", help="topic entity (repeatable)")
    ask.add_argument("--width", type=int, help="W, reasoning chains (3)")
    ask.add_argument("--depth", type=int, help="D_max, maximum depth (5)")
    ask.add_argument("--max-community-size", type=int, help="M (4)")
    ask.add_argument("--algorithm", choices=ALGORITHMS, help="community detection (louvain)")
    ask.add_argument("--fallback", choices=FALLBACKS, help="after D_max (cot)")
    ask.add_argument("--seed", type=int, help="random seed (0)")
    ask.add_argument("--json", action="store_true", help="print the whole result as JSON")
    ask.add_argument("--draw", metavar="IMAGE", help="draw the chains to IMAGE (.png/.svg/.pdf)")
    ask.add_argument("--quiet", action="store_true", help="no progress output")
    ask.set_defaults(handler=_ask)
    add_eval_subcommand(commands)
    add_load_subcommand(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except KGRetrieverError as err:
        print(f"kgqa: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
