"""FastToG's first choice alone, replayed on MetaQA dev questions with a local model.

The fast loop for the first fine-pruning step: one Local Community Search step from the
topic entity, the start community, then the first choice of W = 3 communities, sent to the
model as FastToG sends it. Questions with W or fewer options are forced (no call). A choice
scores:

- ``on``: a chosen community holds a node on a gold path (the answer, or a bridge such as the
  topic's director; see ``benchmarks/fasttog_reach.py``);
- ``answer``: a chosen community holds a gold answer.

``--variant now`` is the paper's LLM choice (``first_choice="llm"``, FastToG's default without
an embedder); ``--variant leaf-chains`` offers the one-node
candidates too (``leaves.start_chains=True``, FastToG before that setting); ``--variant
similarity`` takes the W offered candidates closest to the question by sentence embeddings
(``first_choice="similarity"``, the default with an embedder, as ``kgqa`` runs it: no LLM
call, no model loaded). The deviations (``docs/research/fasttog_deviations.md``) quote dev
questions 51-110 (``--start 50 --stop 110``), which the report's first 50 per hop do not
include.

Usage::

    .venv/bin/python benchmarks/fasttog_prune_replay.py [--variant now] [--hops 2hop,3hop]
        [--start 50] [--stop 110] [--llm local]

Last line: ``fasttog_prune_replay variant=… 2hop_on=…/… 2hop_answer=…/… 3hop_on=…/…
3hop_answer=…/… seconds_per_call=…``.
"""

from __future__ import annotations

import argparse
import sys
import time

# Run as a script, this folder is on the path: the gold paths are fasttog_reach's.
from fasttog_reach import gold_positions, path_relations

from kgcore.graph import InMemoryGraphStore
from kgcore.linking import link_entity
from kgcore.methods.fasttog import FastToG
from kgeval.datasets import load_metaqa
from kgeval.registry import fasttog_config
from langchain_fasttog.llm import LangChainLLM
from langchain_fasttog.models import paper_sampling, resolve_chat_model

#: FastToGConfig settings by ``--variant``.
VARIANTS: dict[str, dict[str, object]] = {
    "now": {"first_choice": "llm"},
    "leaf-chains": {"leaves.start_chains": True, "first_choice": "llm"},
    "similarity": {"first_choice": "similarity"},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=tuple(VARIANTS), default="now")
    parser.add_argument("--hops", default="2hop,3hop")
    parser.add_argument("--start", type=int, default=50, help="first question (0-based)")
    parser.add_argument("--stop", type=int, default=110, help="questions before this one")
    parser.add_argument("--llm", default="local")
    args = parser.parse_args(argv)

    store = InMemoryGraphStore.from_file(load_metaqa("1hop", 1).graph_path, progress=False)
    config = fasttog_config(VARIANTS[args.variant])
    engine = FastToG(store, config)
    llm: LangChainLLM | None = None  # loaded at the first choice the model makes
    figures: list[str] = []
    calls, seconds = 0, 0.0
    for hop in args.hops.split(","):
        on = answer = asked = 0
        for example in load_metaqa(hop, args.stop).examples[args.start :]:
            topic = link_entity(store, example.topic_entities[0])
            answers = {a for a in example.answers if store.has_node(a)}
            positions = gold_positions(store, topic, path_relations(example.meta["type"]), answers)
            candidates = engine.search.step([topic], {topic}, depth=0, chain=0).candidates
            if len(candidates) <= config.width:
                continue  # forced with every option: nothing to replay
            asked += 1
            offered = engine.start.first_options(candidates)
            if len(offered) <= config.width:
                chosen, reply = offered, "(forced)"
            elif engine.first_choice == "similarity":
                ranked = engine.rank_by_similarity(
                    example.question, [candidates[i] for i in offered]
                )
                chosen, reply = [offered[i] for i in ranked[: config.width]], "(similarity)"
            else:
                if llm is None:
                    chat = resolve_chat_model(args.llm)
                    llm = LangChainLLM(chat, sampling=paper_sampling(args.llm))
                start = engine.start.build([topic], candidates)
                request = engine.choice_request(
                    example.question,
                    start.text,
                    [candidates[i] for i in offered],
                    config.width,
                    first=True,
                )
                began = time.perf_counter()
                reply = llm.generate(request).text
                seconds += time.perf_counter() - began
                calls += 1
                picked = engine.read_choice(reply, len(offered), config.width) or []
                chosen = [offered[i] for i in picked]
            nodes = [n for i in chosen for n in candidates[i].nodes]
            hit_path = any(positions.get(n, 0) >= 1 for n in nodes)
            on += hit_path
            answer += any(n in answers for n in nodes)
            print(
                f"{example.id} {'on ' if hit_path else '-- '} chosen={[i + 1 for i in chosen]} "
                f"reply={reply[:30]!r}",
                flush=True,
            )
        figures += [f"{hop}_on={on}/{asked}", f"{hop}_answer={answer}/{asked}"]
    print(
        f"fasttog_prune_replay variant={args.variant} {' '.join(figures)} "
        f"seconds_per_call={seconds / max(1, calls):.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
