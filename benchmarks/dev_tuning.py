"""Tuning runs on the dev questions kept for deciding (51 and later): one method, several
option sets, the same questions, the local model, paired.

Each option set is run through the harness (``kgeval.evaluate``, as ``kgqa eval`` runs it) on
questions ``--start + 1`` to ``--start + --count`` of each dataset; traces go to
``--out/<label>__<dataset>.jsonl`` and a run resumes where it stopped. The last lines print
hit@1 per option set with its 95% interval, and the questions each wins and loses against
the first.

Usage::

    .venv/bin/python benchmarks/dev_tuning.py --method gretriever \\
        --variant "" --variant text_order=relevance --specs metaqa:3hop webqsp --count 25
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from kgeval.datasets import CROSS_GRAPH_SPECS, load_dataset
from kgeval.harness import evaluate
from kgeval.metrics import wilson_interval
from kgqa.common import llm_for
from kgqa.eval import parse_option

ROOT = Path(__file__).resolve().parent.parent


def options_of(variant: str) -> dict[str, Any]:
    """``"a=1,b=x"`` as options (an empty text: the defaults)."""
    return dict(parse_option(p) for p in variant.split(",") if p.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", required=True)
    parser.add_argument("--variant", action="append", required=True, help="k=v,k=v or ''")
    parser.add_argument("--specs", nargs="+", default=list(CROSS_GRAPH_SPECS))
    parser.add_argument("--start", type=int, default=50, help="questions skipped (50: 51-)")
    parser.add_argument("--count", type=int, default=25)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "dev_tuning")
    args = parser.parse_args(argv)
    llm0 = llm_for("local", "default")
    hits: dict[str, dict[str, bool]] = {v: {} for v in args.variant}
    for spec in args.specs:
        data = load_dataset(spec)
        chosen = data.examples[args.start : args.start + args.count]
        data = dataclasses.replace(data, examples=chosen)
        for variant in args.variant:
            label = f"{args.method}[{variant}]" if variant else args.method
            llm = type(llm0)(llm0.model, run_name_prefix=label, sampling=llm0.sampling)
            run = evaluate(
                args.method, data, llm, options=options_of(variant), out_dir=args.out / label,
                serialize_llm=True, progress=False, plots=False,
            )  # fmt: skip
            for record in run.records:
                hits[variant][f"{data.name}:{record['id']}"] = bool(record["hit"])
            print(label, data.name, json.dumps({"hit@1": run.summary["hit@1"]}), flush=True)
    first = args.variant[0]
    for variant, found in hits.items():
        n, right = len(found), sum(found.values())
        low, high = wilson_interval(right, n)
        won = sum(found[q] and not hits[first].get(q, False) for q in found)
        lost = sum(not found[q] and hits[first].get(q, False) for q in found)
        print(
            f"dev_tuning variant={variant or 'default'} n={n} hit@1={right / n:.3f} "
            f"[{low:.2f}, {high:.2f}] won={won} lost={lost} (against {first or 'default'})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
