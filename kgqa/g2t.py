"""``kgqa g2t``: train, synthesise data for, benchmark, publish and serve Graph2Text.

Example
-------
.. code-block:: console

    $ kgqa g2t train --base scratch:small --out runs/g2t          # WebNLG from ../shared/data
    $ kgqa g2t synth --llm local --n 200 --out runs/g2t-synth.jsonl
    $ kgqa g2t publish models/graph2text-webnlg-smollm2 --dry-run out/   # to kg-retrievers/...
    $ kgqa g2t serve --port 8000 --token SECRET     # the default model: SmolLM2 where it runs
"""

from __future__ import annotations

import argparse
import json
import logging
import os
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgmodels.graph2text.serve_options import add_serve_arguments, check_serve_options
from kgqa.door import (
    check_graph_file,
    check_input_file,
    check_llm,
    check_new_file,
    check_new_folder,
    real_number,
    whole_number,
)

#: The folder ``kgqa g2t publish`` stages when none is named.
DEFAULT_MODEL = "models/graph2text-webnlg-small"


def _webnlg(split: str) -> str:
    from kgeval.datasets import default_data_dir

    return str(default_data_dir() / "webnlg" / f"webnlg_en_v1.6_{split}.jsonl")


def _train(args: argparse.Namespace) -> int:
    from kgmodels.graph2text.training import TrainConfig, train

    check_new_folder(args.out, "--out")  # before torch loads
    for option, path in (("--train", args.train), ("--dev", args.dev)):
        check_input_file(path, option)
    for path in args.synthetic:
        check_input_file(path, "--synthetic")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    config = TrainConfig(
        base=args.base,
        output_dir=args.out,
        train_files=[args.train or _webnlg("train"), *args.synthetic],
        dev_file=args.dev or _webnlg("dev"),
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.lr,
        warmup_steps=args.warmup_steps,
        max_steps=args.max_steps,
        val_limit=args.val_limit,
        seed=args.seed,
        threads=args.threads,
        resume=not args.no_resume,
        progress=not args.quiet,
    )
    result = train(config, on_epoch=lambda record: print(json.dumps(record), flush=True))
    print(f"best dev BLEU {result.best_bleu:.2f}: {result.best_dir}")
    return 0


def _synth(args: argparse.Namespace) -> int:
    from kgcore.graph.memory import InMemoryGraphStore
    from kgcore.linking import bracketed_entities
    from kgeval.datasets import default_data_dir
    from kgmodels.graph2text.synth import synthesize
    from langchain_fasttog.llm import LangChainLLM
    from langchain_fasttog.models import resolve_chat_model

    check_new_file(args.out, "--out")  # before the graph and the model load
    check_graph_file(args.kg)
    check_llm(args.llm)
    metaqa = default_data_dir() / "metaqa"
    entities: list[str] = []
    for hop in (1, 2, 3):  # the dev questions only: the others are held out
        for line in (metaqa / f"dev_{hop}hop.txt").read_text().splitlines():
            entities.extend(bracketed_entities(line.split("\t")[0]))
    store = InMemoryGraphStore.from_file(args.kg or metaqa / "kb.txt", progress=False)
    llm = LangChainLLM(resolve_chat_model(args.llm))
    rows = synthesize(store, entities, llm, n=args.n, seed=args.seed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    print(f"{len(rows)} guarded pairs written to {args.out}")
    return 0


def _publish(args: argparse.Namespace) -> int:
    from kgmodels.graph2text.publish import default_repo_id, publish, read_metrics

    out = args.dry_run or args.staging
    if not Path(args.model).is_dir():
        raise ConfigurationError(f"model folder {args.model!r} not found (or not a folder)")
    repo_id = args.repo_id or default_repo_id(args.model)
    check_new_folder(out, "--dry-run" if args.dry_run else "--staging")
    staged = publish(
        args.model,
        repo_id,
        out=out,
        private=args.private,
        dry_run=bool(args.dry_run),
        metrics=read_metrics(args.metrics),
    )
    verb = "staged (dry run, nothing uploaded)" if args.dry_run else "uploaded"
    print(f"{repo_id}: {verb} from {staged}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    options = check_serve_options(args)  # before the server library and the model load
    from kgmodels.graph2text.serve import serve

    return serve(options)


def add_subcommand(commands: Any) -> None:
    """Register ``kgqa g2t`` and its subcommands on the CLI's subparsers."""
    g2t = commands.add_parser("g2t", help="Graph2Text: train, synth, publish, serve")
    sub = g2t.add_subparsers(dest="g2t_command", required=True)

    train = sub.add_parser("train", help="train a Graph2Text model on WebNLG (+ synthetic pairs)")
    train.add_argument("--base", default="scratch:small", help="scratch:small|tiny or a Hub id")
    train.add_argument("--out", default="runs/graph2text", help="output folder (resumes from it)")
    train.add_argument("--train", help="WebNLG train JSONL (default: ../shared/data/webnlg)")
    train.add_argument("--dev", help="WebNLG dev JSONL (default: ../shared/data/webnlg)")
    train.add_argument("--synthetic", action="append", default=[], help="extra JSONL pairs")
    train.add_argument("--epochs", type=whole_number(1), help="scratch 20, Hub 2 (the paper)")
    train.add_argument("--batch-size", type=whole_number(1), help="scratch 32, Hub 8")
    train.add_argument(
        "--lr", type=real_number(0, low_open=True), help="scratch 2e-3, Hub 1e-5 (the paper)"
    )
    train.add_argument("--warmup-steps", type=whole_number(0))
    train.add_argument("--max-steps", type=whole_number(1), help="stop after this many steps")
    train.add_argument("--val-limit", type=whole_number(1), help="score on the first N dev entries")
    train.add_argument("--seed", type=whole_number(0), default=0)
    train.add_argument("--threads", type=whole_number(1), help="torch threads")
    train.add_argument("--no-resume", action="store_true", help="start over")
    train.add_argument("--quiet", action="store_true", help="no progress bars")
    train.set_defaults(handler=_train)

    synth = sub.add_parser("synth", help="LLM-written community texts from MetaQA (guarded)")
    synth.add_argument("--llm", default="local", help="local | local-small | provider:model")
    synth.add_argument("--n", type=whole_number(1), default=100, help="pairs to keep")
    synth.add_argument("--kg", help="triple file (default: MetaQA kb.txt)")
    synth.add_argument("--seed", type=whole_number(0), default=0)
    synth.add_argument("--out", default="benchmarks/out/g2t-synth.jsonl")
    synth.set_defaults(handler=_synth)

    pub = sub.add_parser("publish", help="write the model card and upload to the Hub")
    pub.add_argument("model", nargs="?", default=DEFAULT_MODEL, help="model folder")
    pub.add_argument(
        "--repo-id",
        help="ORG/NAME on the Hugging Face Hub (default for a shipped model: kg-retrievers/NAME)",
    )
    pub.add_argument("--private", action="store_true")
    pub.add_argument("--dry-run", metavar="DIR", help="stage into DIR, upload nothing")
    pub.add_argument("--staging", default="benchmarks/out/g2t-publish", help="staging folder")
    pub.add_argument("--metrics", default="benchmarks/results/g2t.json")
    pub.set_defaults(handler=_publish)

    serve = sub.add_parser("serve", help="serve a model over HTTP (LitServe, dynamic batching)")
    add_serve_arguments(serve)
    serve.set_defaults(handler=_serve)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
