"""``kgqa gretriever``: train and evaluate G-Retriever's graph prompt (GNN + frozen LLM).

Example
-------
.. code-block:: console

    $ kgqa gretriever train --data explagraphs --mode prompt --preset cpu \\
          --out models/gretriever-gnn/prompt-cpu
    $ kgqa gretriever train --data pathquestion --mode scorer \\
          --out models/gretriever-gnn/pq-scorer
    $ kgqa gretriever evaluate --checkpoint models/gretriever-gnn/prompt-cpu/best.safetensors \\
          --split test
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgqa.door import (
    check_local_llm_folder,
    check_new_file,
    check_new_folder,
    real_number,
    whole_number,
)

DATASETS = ("explagraphs", "metaqa-graph")
#: ``--mode scorer`` trains the answer-node scorer on PathQuestion's training questions.
SCORER_MODE = "scorer"
SCORER_DATA = "pathquestion"
# Spelled out rather than imported: importing the core's constants would load torch for every
# kgqa command (tests check they match kgcore.gretriever.gnn's MODES and GNN_KINDS).
MODES = ("inference", "prompt", "lora")
GNN_KINDS = ("gat", "graph-transformer")
PRESETS = ("paper", "cpu", "tiny")
RECIPES = ("paper",)
#: Stage 1's history in the run folder (``--pretrain-gnn-epochs``).
PRETRAIN_FILE = "pretrain.json"
#: The option types (:mod:`kgqa.door`): a bad number is a usage error before torch loads.
AT_LEAST_0 = whole_number(0)
AT_LEAST_1 = whole_number(1)
POSITIVE = real_number(0, low_open=True)


def _threads(count: int | None) -> None:
    if count:
        import torch

        torch.set_num_threads(count)


def load_task(name: str, split: str) -> Any:
    """The labelled prompts of one split of a task (``DATASETS``)."""
    if name == "metaqa-graph":
        from kgmodels.gnn.graph_task_prompts import load_graph_task_prompts

        return load_graph_task_prompts(split)
    from kgmodels.gnn.explagraph_prompts import load_explagraph_prompts

    return load_explagraph_prompts(split)


def _model_config(args: argparse.Namespace) -> Any:
    from kgcore.gretriever.gnn import GNNConfig, GraphPromptConfig
    from kgcore.gretriever.gnn.model import DEFAULT_SYSTEM_PROMPT
    from kgmodels.gnn.graph_task import SYSTEM_PROMPT

    overrides = {
        key: value
        for key, value in (
            ("num_layers", args.layers),
            ("heads", args.heads),
            ("hidden_channels", args.hidden),
            ("kind", args.gnn),
        )
        if value is not None
    }
    if args.recipe == "paper":
        paper_llm = (
            {} if args.llm == "smollm2" else {"llm": args.llm, "num_params": args.num_params}
        )
        return GraphPromptConfig.paper(seed=args.seed, **paper_llm)
    return GraphPromptConfig(
        mode=args.mode,
        llm=args.llm,
        num_params=args.num_params,
        gnn=GNNConfig.preset(args.preset, **overrides),
        graph_tokens=args.graph_tokens,
        max_text_tokens=args.max_text_tokens,
        max_new_tokens=args.max_new_tokens,
        graph_norm=args.graph_norm,
        system_prompt=SYSTEM_PROMPT if args.data == "metaqa-graph" else DEFAULT_SYSTEM_PROMPT,
        seed=args.seed,
    )


def _train_scorer(args: argparse.Namespace) -> int:
    """``--mode scorer``: the answer-node scorer on PathQuestion's four training sets."""
    if args.data != SCORER_DATA:
        raise ConfigurationError(f"--mode scorer trains on --data {SCORER_DATA}")
    if args.mode != SCORER_MODE:
        raise ConfigurationError(f"--data {SCORER_DATA} trains the node scorer: add --mode scorer")
    check_new_folder(args.out, "--out")  # before torch loads
    from kgeval.datasets import default_data_dir

    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir() / "pathquestion"
    for name in ("PQ-2H", "PQ-3H", "PQL-2H", "PQL-3H"):  # kgmodels' PATHQUESTION_SETS
        paths = [data_dir / f"train_{name}.jsonl", data_dir / f"kb_{name}.txt"]
        if name.endswith("3H"):  # the deciding dev questions (kgmodels' DECIDING_SETS)
            paths.append(data_dir / f"dev_{name}.jsonl")
        for path in paths:
            if not path.is_file():
                raise ConfigurationError(f"training questions not found: {path} is missing")
    from kgcore.gretriever.gnn.node_scorer import NodeScorerConfig
    from kgmodels.gnn.node_scoring_training import (
        BEST_FILE,
        DECIDING_ROWS,
        DECIDING_SETS,
        DEFAULT_RETRIEVAL,
        ScorerTrainConfig,
        prepare_examples,
        train_scorer,
    )

    _threads(args.threads or 1)
    out = Path(args.out or "models/gretriever-gnn/pq-scorer")
    sizes = {
        k: v
        for k, v in (("layers", args.layers), ("heads", args.heads), ("hidden", args.hidden))
        if v is not None
    }
    model_config = NodeScorerConfig(**sizes)
    defaults = ScorerTrainConfig()
    config = ScorerTrainConfig(
        epochs=args.epochs or defaults.epochs,
        batch_size=args.batch_size or defaults.batch_size,
        lr=args.lr or defaults.lr,
        seed=args.seed,
    )
    started = time.perf_counter()
    examples, counts = prepare_examples(data_dir, limit=args.max_train, progress=not args.quiet)
    first, last = DECIDING_ROWS
    validation, deciding = prepare_examples(
        data_dir,
        DECIDING_SETS,
        part="dev",
        first=first,
        limit=last - first,
        keep_all=True,
        progress=not args.quiet,
    )
    facts = {
        "data": counts,
        "deciding": {"questions": f"dev {first + 1}-{last}", **deciding},
        "prepare_seconds": round(time.perf_counter() - started, 1),
    }
    state = train_scorer(
        examples, out, config, model_config, DEFAULT_RETRIEVAL, facts, not args.quiet, validation
    )
    print(
        json.dumps(
            {
                "checkpoint": str(out / BEST_FILE),
                "best_epoch": state["best"]["epoch"],
                "deciding_hit@1": round(state["best"]["validation_hit@1"], 4),
                "seconds": state["seconds"],
            }
        )
    )
    return 0


def _train(args: argparse.Namespace) -> int:
    if args.mode == SCORER_MODE or args.data == SCORER_DATA:
        return _train_scorer(args)
    from kgcore.gretriever.gnn import GraphPromptModel
    from kgmodels.gnn.explagraphs import seeded_subset
    from kgmodels.gnn.training import BEST_FILE, TrainConfig, Trainer, evaluate_accuracy

    check_new_folder(args.out, "--out")  # before torch and the model load
    check_local_llm_folder(args.llm)
    if args.pretrain_gnn_epochs and args.recipe is None and args.mode == "inference":
        raise ConfigurationError("--pretrain-gnn-epochs needs --mode prompt or lora (a GNN)")
    _threads(args.threads)
    config = _model_config(args)
    out = Path(args.out or f"models/gretriever-gnn/{args.mode}")
    train_all, val_all = load_task(args.data, "train"), load_task(args.data, "val")
    train = seeded_subset(train_all, args.max_train, args.seed)
    val = seeded_subset(val_all, args.max_val, args.seed)
    model = GraphPromptModel(config)
    if args.pretrain_gnn_epochs:
        _pretrain(model, train_all, val_all, out, args)
    progress = not args.quiet
    print(
        f"mode={config.mode} gnn={config.gnn.kind} layers={config.gnn.num_layers} "
        f"heads={config.gnn.heads} hidden={config.gnn.hidden_channels} "
        f"trainable={model.num_trainable()} train={len(train)} val={len(val)} "
        f"device={model.device}",
        file=sys.stderr,
    )
    if config.mode == "inference":
        result = evaluate_accuracy(model, val, args.eval_batch_size, progress, desc="val")
        path = model.save(out / BEST_FILE, extra={"val_accuracy": result.accuracy})
        print(json.dumps({"checkpoint": str(path), "val_accuracy": round(result.accuracy, 4)}))
        return 0
    common: dict[str, Any] = {
        "eval_batch_size": args.eval_batch_size,
        "save_every": args.save_every,
        "balance": args.balance,
        "seed": args.seed,
        "progress": progress,
        "projector_lr": args.projector_lr,
    }
    if args.recipe == "paper":
        train_config = TrainConfig.paper(**common)
    else:
        train_config = TrainConfig(
            epochs=args.epochs or 10,
            lr=args.lr or 1e-5,
            weight_decay=args.weight_decay,
            batch_size=args.batch_size or 4,
            grad_accumulation=args.grad_accumulation,
            warmup_ratio=args.warmup_ratio,
            patience=args.patience,
            **common,
        )
    state = Trainer(model, train, val, out, train_config).run()
    print(
        json.dumps(
            {
                "checkpoint": str(out / BEST_FILE),
                "best_epoch": state.best_epoch,
                "val_accuracy": round(state.best_accuracy, 4),
                "seconds_per_step": state.seconds_per_step,
                "trainable_parameters": model.num_trainable(),
            }
        )
    )
    return 0


def _pretrain(model: Any, train: Any, val: Any, out: Path, args: argparse.Namespace) -> None:
    """Stage 1 (:mod:`kgmodels.gnn.pretrain`): the GNN learns the label from the graph, on the
    whole training split, the best epoch chosen on the whole validation split; the history
    goes to ``OUT/pretrain.json``. Seeded, so a resumed run redoes it identically (and then
    loads its last snapshot over it)."""
    from kgmodels.gnn.pretrain import PretrainConfig, pretrain_gnn

    settings = PretrainConfig(
        epochs=args.pretrain_gnn_epochs,
        lr=args.pretrain_lr,
        seed=args.seed,
        progress=not args.quiet,
    )
    history = pretrain_gnn(model.inner.gnn, train, val, settings, model.device)
    out.mkdir(parents=True, exist_ok=True)
    payload = {
        "settings": {k: v for k, v in asdict(settings).items() if k != "progress"},
        "train_examples": len(train),
        "val_examples": len(val),
        "best_val_accuracy": max(row["val_accuracy"] for row in history),
        "history": history,
    }
    (out / PRETRAIN_FILE).write_text(json.dumps(payload, indent=1) + "\n")


def _evaluate(args: argparse.Namespace) -> int:
    from kgcore.gretriever.gnn import load_model
    from kgmodels.gnn.explagraphs import seeded_subset
    from kgmodels.gnn.training import evaluate_accuracy

    check_new_file(args.out, "--out")  # before torch and the model load
    if args.llm is not None:
        check_local_llm_folder(args.llm)
    _threads(args.threads)
    model = load_model(args.checkpoint, llm=args.llm)
    examples = seeded_subset(load_task(args.data, args.split), args.sample, args.seed)
    result = evaluate_accuracy(model, examples, args.batch_size, not args.quiet, desc=args.split)
    summary = {
        "checkpoint": str(args.checkpoint),
        "mode": model.config.mode,
        "split": args.split,
        "examples": len(examples),
        "accuracy": round(result.accuracy, 4),
        "unparseable": result.unparseable,
        "seconds": round(result.seconds, 1),
    }
    if args.out:
        rows = [
            {"id": e.id, "label": e.label, "prediction": p, "reply": r}
            for e, p, r in zip(examples, result.predictions, result.replies, strict=True)
        ]
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    print(json.dumps(summary))
    return 0


def add_subcommand(commands: Any) -> None:
    """Register ``kgqa gretriever train|evaluate`` on the CLI's subparsers."""
    parser = commands.add_parser(
        "gretriever", help="train/evaluate G-Retriever's GNN graph prompt with a frozen LLM"
    )
    actions = parser.add_subparsers(dest="action", required=True)
    train = actions.add_parser("train", help="train the graph prompt (or LoRA) on a task")
    train.add_argument(
        "--data",
        choices=(*DATASETS, SCORER_DATA),
        default="explagraphs",
        help="ExplaGraphs, the graph-only yes/no task on MetaQA's graph, or PathQuestion's "
        "training questions (with --mode scorer)",
    )
    train.add_argument(
        "--recipe",
        choices=RECIPES,
        help="the paper's setting (GPU): LoRA r=8 alpha=16, Graph Transformer (4 layers, hidden "
        "1024), Llama-2-7B chat, lr 1e-5, 10 epochs; fixes mode, GNN and optimiser options "
        "(--llm with --num-params may name another 7B model)",
    )
    train.add_argument(
        "--mode",
        choices=(*MODES, SCORER_MODE),
        default="prompt",
        help="graph prompt: inference, prompt, lora; scorer: the GNN scores answer nodes "
        "(--data pathquestion; no LLM)",
    )
    train.add_argument("--llm", default="smollm2", help="smollm2 | HF folder | Hub id")
    train.add_argument("--num-params", type=POSITIVE, help="LLM size in billions (Hub models)")
    train.add_argument("--gnn", choices=GNN_KINDS, help="graph encoder (gat)")
    train.add_argument("--preset", choices=PRESETS, default="paper")
    train.add_argument("--layers", type=AT_LEAST_1, help="override the preset's layers")
    train.add_argument("--heads", type=AT_LEAST_1, help="override the preset's heads")
    train.add_argument("--hidden", type=AT_LEAST_1, help="override the preset's hidden width")
    train.add_argument("--graph-tokens", type=AT_LEAST_1, default=1)
    train.add_argument(
        "--graph-norm",
        action="store_true",
        help="batch-norm the pooled graph vector before the projector (not in the paper)",
    )
    train.add_argument("--max-text-tokens", type=AT_LEAST_1, default=512)
    train.add_argument(
        "--max-new-tokens", type=AT_LEAST_1, default=8, help="cap on a reply's tokens"
    )
    train.add_argument("--epochs", type=AT_LEAST_1, help="default 10 (scorer: 20)")
    train.add_argument("--lr", type=POSITIVE, help="default 1e-5 (scorer: 1e-3)")
    train.add_argument("--weight-decay", type=real_number(0), default=0.05)
    train.add_argument("--batch-size", type=AT_LEAST_1, help="default 4 (scorer: 16)")
    train.add_argument("--grad-accumulation", type=AT_LEAST_1, default=2)
    train.add_argument("--warmup-ratio", type=real_number(0, 1, high_open=True), default=0.1)
    train.add_argument("--patience", type=AT_LEAST_1, default=2)
    train.add_argument("--eval-batch-size", type=AT_LEAST_1, default=8)
    train.add_argument(
        "--save-every", type=AT_LEAST_1, default=25, help="optimiser steps per snapshot"
    )
    train.add_argument(
        "--balance", action="store_true", help="class-balanced epochs (rarer labels repeated)"
    )
    train.add_argument(
        "--pretrain-gnn-epochs",
        type=AT_LEAST_1,
        help="stage 1 before prompt tuning (not in the paper): train the GNN with a label head "
        "on the pooled graph vector for N epochs (whole train split, best val epoch kept)",
    )
    train.add_argument(
        "--pretrain-lr", type=POSITIVE, default=1e-3, help="stage 1's AdamW learning rate"
    )
    train.add_argument(
        "--projector-lr", type=POSITIVE, help="the projector's learning rate (default: --lr)"
    )
    train.add_argument(
        "--max-train",
        type=AT_LEAST_1,
        help="seeded subset of the training graphs (scorer: the first N questions of each set)",
    )
    train.add_argument("--data-dir", help="scorer: folder of PathQuestion's files")
    train.add_argument("--max-val", type=AT_LEAST_1, help="seeded subset of the validation graphs")
    train.add_argument("--seed", type=AT_LEAST_0, default=0)
    train.add_argument("--threads", type=AT_LEAST_1, help="torch CPU threads")
    train.add_argument("--out", help="run folder (default models/gretriever-gnn/MODE)")
    train.add_argument("--quiet", action="store_true", help="no progress bars")
    train.set_defaults(handler=_train)

    evaluate = actions.add_parser("evaluate", help="accuracy of a checkpoint on a split")
    evaluate.add_argument("--checkpoint", required=True)
    evaluate.add_argument("--data", choices=DATASETS, default="explagraphs")
    evaluate.add_argument("--split", choices=("train", "val", "test"), default="test")
    evaluate.add_argument("--sample", type=AT_LEAST_1, help="seeded subset of the split")
    evaluate.add_argument("--seed", type=AT_LEAST_0, default=0)
    evaluate.add_argument("--llm", help="another path for the checkpoint's LLM")
    evaluate.add_argument("--batch-size", type=AT_LEAST_1, default=8)
    evaluate.add_argument("--threads", type=AT_LEAST_1)
    evaluate.add_argument("--out", help="JSON file for every reply")
    evaluate.add_argument("--quiet", action="store_true")
    evaluate.set_defaults(handler=_evaluate)
