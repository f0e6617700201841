"""Train the causal Graph2Text model (SmolLM2-135M-Instruct + LoRA) and pick it on WebNLG dev.

One training run per learning rate, all at once (one process each: on a GPU, small models are
bound by kernel launches, so runs side by side cost little more than one), each resumable
(``python -m kgmodels.graph2text.causal_training``, a checkpoint every 200 steps under
``--work``); then each is scored on a seeded sample of WebNLG dev (BLEU, greedy) and the best
is copied to ``--out``. Test data is not read here.

Usage::

    python benchmarks/g2t_train_causal.py --work /tmp/issue38-g2t \\
        --out models/graph2text-webnlg-smollm2 --lrs 1e-3 3e-4 --epochs 3 --batch-size 48

Last line: ``g2t_train best_lr=… dev_bleu=… steps=…``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from kgcore.text.graph2text import Graph2Text
from kgeval.datasets import default_data_dir
from kgmodels.graph2text.data import read_webnlg
from kgmodels.graph2text.metrics import corpus_scores

SEED = 20261126


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", required=True, help="checkpoints and candidate models")
    parser.add_argument("--out", required=True, help="the chosen model folder")
    parser.add_argument("--lrs", nargs="+", type=float, default=[1e-3, 3e-4])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=48)
    parser.add_argument("--lora-r", type=int, default=16)
    parser.add_argument("--max-seconds", type=float)
    parser.add_argument("--max-steps", type=int)
    parser.add_argument("--dev-sample", type=int, default=300)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    webnlg = default_data_dir() / "webnlg"
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    runs = {}
    for lr in args.lrs:
        name = f"lr{lr:g}"
        command = [
            sys.executable,
            "-m",
            "kgmodels.graph2text.causal_training",
            "--train",
            str(webnlg / "webnlg_en_v1.6_train.jsonl"),
            "--out",
            str(work / name / "model"),
            "--checkpoints",
            str(work / name / "checkpoints"),
            "--epochs",
            str(args.epochs),
            "--batch-size",
            str(args.batch_size),
            "--lr",
            str(lr),
            "--lora-r",
            str(args.lora_r),
            "--lora-alpha",
            str(2 * args.lora_r),
            "--threads",
            str(args.threads),
        ]
        if args.max_seconds:
            command += ["--max-seconds", str(args.max_seconds)]
        if args.max_steps:
            command += ["--max-steps", str(args.max_steps)]
        log = open(work / f"{name}.log", "a")  # noqa: SIM115 - closed after the wait below
        runs[name] = (
            subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=os.environ),
            log,
        )
    for name, (process, log) in runs.items():
        code = process.wait()
        log.close()
        if code:
            print((work / f"{name}.log").read_text()[-3000:])
            raise SystemExit(f"training {name} failed ({code})")
    dev = read_webnlg(webnlg / "webnlg_en_v1.6_dev.jsonl", True)
    dev = random.Random(SEED).sample(dev, min(args.dev_sample, len(dev)))
    scores = {}
    for name in runs:
        g2t = Graph2Text.from_pretrained(work / name / "model", batch_size=64)
        texts = g2t.generate([e.triples for e in dev])
        scores[name] = corpus_scores(texts, [e.texts for e in dev])["bleu"]
        summary = json.loads((work / name / "model" / "training_summary.json").read_text())
        print(f"{name} dev_bleu={scores[name]:.2f} steps={summary['steps']} examples: {texts[:2]}")
        del g2t
    best = max(scores, key=lambda n: scores[n])
    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(work / best / "model", out)
    summary = json.loads((out / "training_summary.json").read_text())
    summary["dev_selection"] = {"sample": len(dev), "seed": SEED, "bleu": scores}
    (out / "training_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"g2t_train best_lr={best[2:]} dev_bleu={scores[best]:.2f} steps={summary['steps']}")


if __name__ == "__main__":
    main()
