"""G-Retriever's generation: ablations of a GNN checkpoint, and inference vs prompt vs LoRA.

**Ablations** (``--checkpoint``): the checkpoint answers the task's test split (``--task``:
``explagraphs``, or ``metaqa-graph``, the graph-only yes/no task of
:mod:`kgmodels.gnn.graph_task`) with each example's own graph (``intact``), with the
graphs shuffled between examples (``shuffled``), with node and edge features zeroed
(``zeroed``), and with no graph token at all (``textonly``: the checkpoint's LLM reads the same
text prompt, as inference-only G-Retriever does); accuracy, its Wilson 95 % interval, balanced
accuracy and the predicted labels per condition, and the majority label's share, go to
``--gnn-out`` (default
``benchmarks/results/gretriever_gnn.txt``), whose last line is
``gnn task=T intact=A shuffled=A zeroed=A textonly=A majority=A intact_lo=L shuffled_hi=H``.
The graph prompt carries the graph when ``intact`` is clearly above ``shuffled`` and
``textonly`` and both labels are predicted. The committed figures were made with:

.. code-block:: console

    $ nice -n 5 python benchmarks/gretriever_explagraphs.py --task explagraphs \\
          --checkpoint models/gretriever-gnn/prompt-cpu/best.safetensors --threads 2
    $ nice -n 19 python benchmarks/gretriever_explagraphs.py --task metaqa-graph \\
          --checkpoint models/gretriever-gnn/graph-cpu/model.safetensors --threads 2 \\
          --gnn-out benchmarks/results/gretriever_gnn_metaqa_graph.txt

(the second, the graph-only task, checks that a token can carry one bit; it is not evidence
that the graph helps answer).

**Modes** (``--prompt``/``--lora``, ExplaGraphs only):

Accuracy on the test split (all 554 graphs, or a seeded ``--sample``) for the inference-only
model (frozen LLM, textualised graph, no graph token) and for the checkpoints given with
``--prompt`` and ``--lora`` (written by ``kgqa gretriever train``), with each model's trainable
parameters and its training seconds per step (from the run's ``state.json``). The paper's
Llama-2-7B figures are printed beside ours. Writes ``benchmarks/results/
gretriever_explagraphs.json``; the last line is ``explagraphs inference=… prompt=… lora=…``
(``n/a`` for a mode without a checkpoint); it runs when no ``--checkpoint`` is given, or
when ``--prompt``/``--lora`` are.

Example
-------
.. code-block:: console

    $ python benchmarks/gretriever_explagraphs.py \\
          --prompt models/gretriever-gnn/prompt-cpu/best.safetensors --sample 100
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

#: He et al. (2024), main results table, ExplaGraphs accuracy with Llama-2-7B: zero-shot
#: inference-only, G-Retriever with prompt tuning (frozen LLM), G-Retriever with LoRA.
PAPER = {"inference": 0.5650, "prompt": 0.8516, "lora": 0.8705}
TASKS = ("explagraphs", "metaqa-graph")


def load_test(task: str, sample: int | None, seed: int) -> list[Any]:
    """The task's test split as labelled prompts (a seeded ``sample`` of it when given)."""
    from kgmodels.gnn.explagraphs import seeded_subset

    if task == "metaqa-graph":
        from kgmodels.gnn.graph_task_prompts import load_graph_task_prompts

        return seeded_subset(load_graph_task_prompts("test"), sample, seed)
    from kgmodels.gnn.explagraph_prompts import load_explagraph_prompts

    return seeded_subset(load_explagraph_prompts("test"), sample, seed)


def ablation_report(
    task: str, checkpoint: str, scores: dict[str, Any], majority: float, extra: dict[str, Any]
) -> str:
    """The results file: a table per condition, then the result line (last)."""
    from kgmodels.gnn.ablation import CONDITIONS, result_line

    lines = [
        f"# G-Retriever GNN ablations: task={task}, checkpoint={checkpoint}",
        *(f"# {key}: {value}" for key, value in extra.items()),
        "| condition | n | accuracy | 95% interval (Wilson) | balanced accuracy | predicted |",
        "|---|---|---|---|---|---|",
    ]
    for condition in CONDITIONS:
        row = scores[condition].to_dict()
        low, high = row["accuracy_95ci"]
        lines.append(
            f"| {condition} | {row['n']} | {row['accuracy']:.3f} | {low:.3f}-{high:.3f} | "
            f"{row['balanced_accuracy']:.3f} | {json.dumps(row['predicted'])} |"
        )
    lines.append(f"majority label share (always answering it): {majority:.3f}")
    lines.append(result_line(task, scores, majority))
    return "\n".join(lines) + "\n"


def _progress_path(gnn_out: Path) -> Path:
    """Where finished conditions are kept until every condition is done."""
    return gnn_out.with_suffix(".conditions.json")


def _load_progress(path: Path, key: dict[str, Any]) -> dict[str, Any]:
    """Conditions already evaluated for the same task, checkpoint and examples."""
    if not path.is_file():
        return {}
    saved = json.loads(path.read_text())
    return dict(saved["conditions"]) if saved.get("key") == key else {}


def ablate(args: argparse.Namespace) -> None:
    """Evaluate ``--checkpoint`` in every condition; write ``--gnn-out``.

    Each finished condition's predictions are kept in ``GNN_OUT.conditions.json`` (removed
    when the report is written), so a run stopped between conditions resumes where it was;
    ``--conditions`` picks the order (all four are needed for the report).
    """
    from kgcore.gretriever.gnn import load_model
    from kgmodels.gnn.ablation import (
        CONDITIONS,
        condition_examples,
        majority_share,
        score,
        uses_graph_token,
    )
    from kgmodels.gnn.training import evaluate_accuracy

    order = args.conditions or list(CONDITIONS)
    unknown = sorted(set(order) - set(CONDITIONS))
    if unknown:
        raise SystemExit(f"unknown condition(s) {unknown}; expected {', '.join(CONDITIONS)}")
    test = load_test(args.task, args.sample, args.seed)
    labels = [example.label for example in test]
    key = {
        "task": args.task,
        "checkpoint": str(args.checkpoint),
        "ids": [example.id for example in test],
        "seed": args.seed,
    }
    progress_path = _progress_path(args.gnn_out)
    done = _load_progress(progress_path, key)
    model = load_model(args.checkpoint, llm=args.llm)
    for condition in order:
        if condition in done:
            print(f"{condition}: kept from {progress_path}", file=sys.stderr)
            continue
        examples = condition_examples(test, condition, seed=args.seed)
        result = evaluate_accuracy(
            model,
            examples,
            args.batch_size,
            progress=True,
            desc=condition,
            graph_token=uses_graph_token(condition),
        )
        done[condition] = {
            "predictions": result.predictions,
            "replies": dict(Counter(result.replies)),
        }
        progress_path.parent.mkdir(parents=True, exist_ok=True)
        progress_path.write_text(json.dumps({"key": key, "conditions": done}))
        row = score(condition, labels, result.predictions).to_dict()
        print(f"{condition}: {json.dumps(row)}", file=sys.stderr)
    missing = [c for c in CONDITIONS if c not in done]
    if missing:
        print(f"not yet evaluated: {', '.join(missing)} (kept: {progress_path})", file=sys.stderr)
        return
    scores = {c: score(c, labels, done[c]["predictions"]) for c in CONDITIONS}
    majority = majority_share(labels)
    extra = {
        "test examples": len(test),
        "gold labels": dict(sorted(Counter(labels).items())),
        "sample seed": args.seed if args.sample else None,
        "gnn": model.config.gnn.to_dict(),
        "mode": model.config.mode,
        "llm": args.llm,
        "max_text_tokens": model.config.max_text_tokens,
        **{k: v for k, v in _run_stats(args.checkpoint).items() if k != "history"},
    }
    text = ablation_report(args.task, str(args.checkpoint), scores, majority, extra)
    args.gnn_out.parent.mkdir(parents=True, exist_ok=True)
    args.gnn_out.write_text(text)
    detail = args.gnn_out.with_suffix(".json")
    detail.write_text(
        json.dumps(
            {
                "task": args.task,
                "checkpoint": str(args.checkpoint),
                "majority": round(majority, 4),
                "gold": dict(sorted(Counter(labels).items())),
                "scores": {c: scores[c].to_dict() for c in CONDITIONS},
                "replies": {c: done[c]["replies"] for c in CONDITIONS},
            },
            indent=1,
        )
        + "\n"
    )
    progress_path.unlink(missing_ok=True)
    print(text, end="")


def _run_stats(checkpoint: Path) -> dict[str, object]:
    state_path = checkpoint.parent / "state.json"
    if not state_path.is_file():
        return {}
    state = json.loads(state_path.read_text())["state"]
    batches = state.get("train_batches") or 0
    return {
        "seconds_per_step": round(state["train_seconds"] / batches, 2) if batches else None,
        "epochs_trained": state.get("epoch"),
        "history": state.get("history"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", choices=TASKS, default="explagraphs")
    parser.add_argument("--checkpoint", type=Path, help="GNN checkpoint to ablate")
    parser.add_argument(
        "--conditions",
        type=lambda text: [c.strip() for c in text.split(",") if c.strip()],
        help="ablation conditions in the order to run them (default: all four)",
    )
    parser.add_argument(
        "--gnn-out", type=Path, default=Path("benchmarks/results/gretriever_gnn.txt")
    )
    parser.add_argument("--prompt", type=Path, help="prompt-tuning checkpoint")
    parser.add_argument("--lora", type=Path, help="LoRA checkpoint")
    parser.add_argument("--llm", default="smollm2")
    parser.add_argument("--max-text-tokens", type=int, default=128)
    parser.add_argument("--sample", type=int, help="seeded subset of the 554 test graphs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/results/gretriever_explagraphs.json")
    )
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    if args.checkpoint is not None:
        ablate(args)
        if args.prompt is None and args.lora is None:
            return 0
    return compare_modes(args)


def compare_modes(args: argparse.Namespace) -> int:
    """Inference-only vs the ``--prompt`` and ``--lora`` checkpoints on ExplaGraphs' test split."""
    import torch

    from kgcore.gretriever.gnn import GraphPromptConfig, GraphPromptModel, load_model
    from kgeval.metrics import wilson_interval
    from kgmodels.gnn.explagraph_prompts import load_explagraph_prompts
    from kgmodels.gnn.explagraphs import seeded_subset
    from kgmodels.gnn.training import evaluate_accuracy

    torch.set_num_threads(args.threads)
    test = seeded_subset(load_explagraph_prompts("test"), args.sample, args.seed)
    rows: dict[str, dict[str, object]] = {}
    models: dict[str, tuple[object, Path | None]] = {
        "inference": (
            lambda: GraphPromptModel(
                GraphPromptConfig(
                    mode="inference", llm=args.llm, max_text_tokens=args.max_text_tokens
                )
            ),
            None,
        )
    }
    for mode in ("prompt", "lora"):
        path = getattr(args, mode)
        if path is not None:
            models[mode] = (lambda p=path: load_model(p, llm=args.llm), path)
    for mode, (build, path) in models.items():
        model = build()  # type: ignore[operator]
        result = evaluate_accuracy(model, test, args.batch_size, progress=True, desc=mode)
        low, high = wilson_interval(round(result.accuracy * len(test)), len(test))
        rows[mode] = {
            "accuracy": round(result.accuracy, 4),
            "accuracy_95ci": [round(low, 3), round(high, 3)],
            "unparseable": result.unparseable,
            "trainable_parameters": model.num_trainable(),
            "eval_seconds_per_graph": round(result.seconds / len(test), 2),
            "checkpoint": str(path) if path else None,
            "paper_llama2_7b": PAPER[mode],
            **(_run_stats(path) if path else {}),
        }
        print(f"{mode}: {json.dumps(rows[mode])}", file=sys.stderr)
        del model

    # The share of the commoner label: a model that always answers it scores this much.
    labels = Counter(example.label for example in test)
    majority = round(labels.most_common(1)[0][1] / len(test), 4)
    report = {
        "split": "test",
        "graphs": len(test),
        "majority_label_share": majority,
        "sample_seed": args.seed if args.sample else None,
        "llm": args.llm,
        "results": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(
        f"| mode | accuracy (n={len(test)}) | 95% interval | paper (Llama-2-7B) | trainable "
        "| s/step |"
    )
    print("|---|---|---|---|---|---|")
    for mode, row in rows.items():
        low, high = row["accuracy_95ci"]  # type: ignore[misc]
        print(
            f"| {mode} | {row['accuracy']} | {low}-{high} | {row['paper_llama2_7b']} | "
            f"{row['trainable_parameters']} | {row.get('seconds_per_step', '-')} |"
        )
    print(f"majority label share (always answering it): {majority}")
    figures = {
        m: rows[m]["accuracy"] if m in rows else "n/a" for m in ("inference", "prompt", "lora")
    }
    print(
        f"explagraphs inference={figures['inference']} prompt={figures['prompt']} "
        f"lora={figures['lora']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
