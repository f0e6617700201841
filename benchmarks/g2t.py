"""Graph2Text on the WebNLG 2017 test set: BLEU, chrF, ROUGE-L (seen / unseen / all) and the
hallucination guard's rejection rate.

Usage: ``python benchmarks/g2t.py [--model models/graph2text-webnlg-small] [--limit N]``.
Greedy decoding, every reference text of an entry used as a reference. Last line:
``g2t bleu_all=… bleu_seen=… guard_rejects=…``. Writes ``benchmarks/results/g2t.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from kgcore.evaluation.datasets import default_data_dir
from kgcore.text.graph2text import Graph2Text
from kgcore.text.graph2text.data import read_webnlg
from kgcore.text.graph2text.guard import check_text
from kgcore.text.graph2text.metrics import corpus_scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="models/graph2text-webnlg-small")
    parser.add_argument("--limit", type=int, help="first N test entries only")
    parser.add_argument("--beams", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default="benchmarks/results/g2t.json")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    test = read_webnlg(default_data_dir() / "webnlg" / "webnlg_en_v1.6_test.jsonl", True)
    test = test[: args.limit] if args.limit else test
    g2t = Graph2Text.from_pretrained(args.model, num_beams=args.beams, batch_size=64)
    started = time.perf_counter()
    texts = g2t.generate([e.triples for e in test])
    seconds = time.perf_counter() - started
    figures: dict[str, object] = {"model": args.model, "entries": len(test), "beams": args.beams}
    for part, keep in (
        ("all", lambda e: True),
        ("seen", lambda e: e.seen),
        ("unseen", lambda e: not e.seen),
    ):
        idx = [i for i, e in enumerate(test) if keep(e)]
        scores = corpus_scores([texts[i] for i in idx], [test[i].texts for i in idx])
        figures[part] = {k: round(v, 2) for k, v in scores.items()} | {"n": len(idx)}
        print(f"{part:6s} n={len(idx):4d} " + " ".join(f"{k}={v:.2f}" for k, v in scores.items()))
    rejects = sum(not check_text(t, e.triples).ok for t, e in zip(texts, test, strict=True))
    figures["guard_rejects"] = round(rejects / max(len(test), 1), 3)
    figures["seconds_per_entry"] = round(seconds / max(len(test), 1), 4)
    figures["examples"] = [
        {"triples": [list(t) for t in test[i].triples], "text": texts[i]}
        for i in (0, len(test) // 2)
    ]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    print(
        f"g2t bleu_all={figures['all']['bleu']:.2f} bleu_seen={figures['seen']['bleu']:.2f} "  # type: ignore[index]
        f"guard_rejects={figures['guard_rejects']:.3f}"
    )


if __name__ == "__main__":
    main()
