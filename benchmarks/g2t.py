"""Graph2Text on the WebNLG 2017 test set: BLEU, chrF, ROUGE-L (seen / unseen / all) and the
hallucination guard's rejection rate; and the guard's pass rate on MetaQA communities.

Usage: ``python benchmarks/g2t.py [--model models/graph2text-webnlg-small] [--limit N]
[--communities 200]``. ``--model default`` measures the model ``textualizer="g2t"`` runs
(:func:`kgcore.text.graph2text.default.default_graph2text`: the fine-tuned SmolLM2 where the
``g2t`` extra and its base model are installed, else the T5) and records its name and, for
the T5, why (``"fallback"``; ``--without peft`` chooses as an install without ``peft``
would); ``--metaqa-only`` skips the WebNLG test. The model writes as
its folder says (``g2t_config.json``: beams, sentence
plan, guard-checked candidates; greedy and whole communities by default) unless ``--beams``,
``--triples-per-sentence`` or ``--candidates`` say otherwise. Every reference text of an entry
is used as a reference. ``--limit N`` takes a seeded sample of N test entries (not the first N).
The MetaQA pass rate is also measured for the plain model (greedy, the whole community at once,
one candidate): ``metaqa_guard_pass_whole``, the ablation of the sentence plan and candidates.

The MetaQA communities (out of domain: movie relations WebNLG never shows) are those FastToG
textualises: one Local Community Search step (communities of at most 4 nodes, 3 one-node
leaves) around the topic entity of each MetaQA dev question (1, 2 and 3 hop, seeded order),
each candidate community with its linking triples, at most 6 triples, duplicates dropped.

Last line: ``g2t bleu_all=… bleu_seen=… guard_rejects=… metaqa_guard_pass=… metaqa_n=…
metaqa_guard_pass_whole=…`` (with ``--metaqa-only``: ``g2t model=… metaqa_guard_pass=…
metaqa_n=… metaqa_guard_pass_whole=… fallback=…``).
Writes ``benchmarks/results/g2t.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from kgcore.community.lcs import LCSConfig, local_community_search
from kgcore.graph import InMemoryGraphStore
from kgcore.text.graph2text import Graph2Text
from kgcore.text.graph2text.default import choose_graph2text, default_graph2text
from kgcore.text.graph2text.guard import check_text
from kgcore.types import Triple
from kgeval.datasets import default_data_dir, load_metaqa
from kgmodels.graph2text.data import read_webnlg
from kgmodels.graph2text.metrics import corpus_scores

SEED = 20261126


def metaqa_communities(n: int, seed: int = SEED) -> list[list[Triple]]:
    """``n`` MetaQA communities as FastToG textualises them (see the module docstring)."""
    dataset_hops = [load_metaqa(hop) for hop in ("1hop", "2hop", "3hop")]
    assert dataset_hops[0].graph_path is not None
    store = InMemoryGraphStore.from_file(dataset_hops[0].graph_path)
    topics = list(
        dict.fromkeys(t for d in dataset_hops for e in d.examples for t in e.topic_entities)
    )
    random.Random(seed).shuffle(topics)
    config = LCSConfig(max_community_size=4)
    seen: set[tuple[Triple, ...]] = set()
    communities: list[list[Triple]] = []
    for index, topic in enumerate(topics):
        if len(communities) >= n:
            break
        if not store.has_node(topic):
            continue
        step = local_community_search(
            store, [topic], config, exclude=[topic], seed=seed + index, leaf_slots=3
        )
        for candidate in step.candidates:
            triples = tuple(dict.fromkeys(candidate.all_triples))[:6]
            if triples and triples not in seen and len(communities) < n:
                seen.add(triples)
                communities.append(list(triples))
    return communities


def metaqa_figures(g2t: Graph2Text, plain: Graph2Text, n: int) -> dict[str, object]:
    """The guard's pass rate on ``n`` MetaQA communities, as written and whole (``plain``)."""
    communities = metaqa_communities(n) if n else []
    started = time.perf_counter()
    community_texts = g2t.generate(communities)
    seconds = time.perf_counter() - started
    verdicts = [check_text(t, c) for t, c in zip(community_texts, communities, strict=True)]
    passed = sum(v.ok for v in verdicts)
    whole = plain.generate(communities)
    passed_whole = sum(check_text(t, c).ok for t, c in zip(whole, communities, strict=True))
    return {
        "communities": len(communities),
        "guard_pass": round(passed / max(len(communities), 1), 3),
        "guard_pass_whole": round(passed_whole / max(len(communities), 1), 3),
        "seconds_per_community": round(seconds / max(len(communities), 1), 3),
        "guard_pass_names_only": round(
            sum(
                check_text(t, c, facts=False).ok
                for t, c in zip(community_texts, communities, strict=True)
            )
            / max(len(communities), 1),
            3,
        ),
        "by_size": {
            str(
                k
            ): f"{sum(v.ok for v, c in zip(verdicts, communities, strict=True) if len(c) == k)}"
            f"/{sum(len(c) == k for c in communities)}"
            for k in sorted({len(c) for c in communities})
        },
        "examples": [
            {"triples": [list(t) for t in c], "text": t, "ok": v.ok}
            for c, t, v in list(zip(communities, community_texts, verdicts, strict=True))[:8]
        ],
    }


def write(figures: dict[str, object], out: str) -> None:
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(figures, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--model", default="models/graph2text-webnlg-small", help="a folder, or 'default'"
    )
    parser.add_argument("--metaqa-only", action="store_true", help="skip the WebNLG test")
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="PACKAGE",
        help="with --model default: choose as an install without PACKAGE would (the fallback)",
    )
    parser.add_argument("--limit", type=int, help="a seeded sample of N test entries")
    parser.add_argument("--communities", type=int, default=200, help="MetaQA communities")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--beams", type=int, help="default: the model folder's")
    parser.add_argument(
        "--triples-per-sentence", type=int, help="0: each community whole (default: the folder's)"
    )
    parser.add_argument("--candidates", type=int, help="default: the model folder's")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default="benchmarks/results/g2t.json")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    test = read_webnlg(default_data_dir() / "webnlg" / "webnlg_en_v1.6_test.jsonl", True)
    if args.limit:
        test = sorted(random.Random(SEED).sample(test, min(args.limit, len(test))), key=test.index)
    chosen = {
        "num_beams": args.beams,
        "triples_per_sentence": args.triples_per_sentence,
        "candidates": args.candidates,
    }
    options = {k: v for k, v in chosen.items() if v is not None}
    if options.get("triples_per_sentence") == 0:
        options["triples_per_sentence"] = None
    fallback = None
    if args.without:  # an install without these packages, as the tests simulate it
        from kgcore.text.graph2text import default

        real = default.installed
        default.installed = lambda package: package not in args.without and real(package)
    if args.model == "default":
        choice = choose_graph2text()
        fallback = choice.fallback
        g2t, model_name = default_graph2text(batch_size=args.batch_size, **options)
    else:
        g2t = Graph2Text.from_pretrained(args.model, batch_size=args.batch_size, **options)
        model_name = args.model
    plain = Graph2Text(g2t.model, g2t.tokenizer, g2t.settings, batch_size=args.batch_size)
    figures: dict[str, object] = {
        "model": model_name,
        "fallback": fallback,
        "beams": g2t.num_beams,
        "triples_per_sentence": g2t.triples_per_sentence,
        "candidates": g2t.candidates,
        "threads": args.threads,
    }
    if args.metaqa_only:
        figures |= metaqa_figures(g2t, plain, args.communities)
        write(figures, args.out)
        print(
            f"g2t model={model_name} metaqa_guard_pass={figures['guard_pass']:.3f} "
            f"metaqa_n={figures['communities']} "
            f"metaqa_guard_pass_whole={figures['guard_pass_whole']:.3f} "
            f"fallback={'yes' if fallback else 'no'}"
        )
        return
    started = time.perf_counter()
    texts = g2t.generate([e.triples for e in test])
    seconds = time.perf_counter() - started
    figures["entries"] = len(test)
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
    names_only = sum(
        not check_text(t, e.triples, facts=False).ok for t, e in zip(texts, test, strict=True)
    )
    figures["guard_rejects"] = round(rejects / max(len(test), 1), 3)
    figures["guard_rejects_names_only"] = round(names_only / max(len(test), 1), 3)
    figures["seconds_per_entry"] = round(seconds / max(len(test), 1), 4)
    figures["metaqa"] = metaqa_figures(g2t, plain, args.communities)
    figures["examples"] = [
        {"triples": [list(t) for t in test[i].triples], "text": texts[i]}
        for i in (0, len(test) // 2)
    ]
    write(figures, args.out)
    print(
        f"g2t bleu_all={figures['all']['bleu']:.2f} bleu_seen={figures['seen']['bleu']:.2f} "  # type: ignore[index]
        f"guard_rejects={figures['guard_rejects']:.3f} "
        f"metaqa_guard_pass={figures['metaqa']['guard_pass']:.3f} "  # type: ignore[index]
        f"metaqa_n={figures['metaqa']['communities']} "  # type: ignore[index]
        f"metaqa_guard_pass_whole={figures['metaqa']['guard_pass_whole']:.3f}"  # type: ignore[index]
    )


if __name__ == "__main__":
    main()
