"""Synthetic community -> text pairs written by an LLM (as the FastToG paper did with GPT-4).

Communities come from Local Community Search around the topic entities of the MetaQA dev
questions; the LLM writes each as sentences; only texts that pass the hallucination guard are
kept. The output is WebNLG-format JSONL (``{"triples", "texts", "category"}``), so
``kgqa g2t train --synthetic FILE`` can add it to the training data.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.llm import ScriptedLLM
>>> store = InMemoryGraphStore.from_triples([("Heat", "directed_by", "Michael Mann"),
...                                          ("Heat", "starred_actors", "Al Pacino")])
>>> llm = ScriptedLLM(["Heat was directed by Michael Mann and starred Al Pacino."] * 5)
>>> rows = synthesize(store, ["Heat"], llm, n=1)
>>> rows[0]["texts"]
['Heat was directed by Michael Mann and starred Al Pacino.']
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from kgcore.community.lcs import LCSConfig, local_community_search
from kgcore.graph.store import GraphStore
from kgcore.llm.protocol import ChatLLM, LLMRequest
from kgcore.text.graph2text.guard import check_text
from kgcore.text.graph2text.linearize import relation_text

#: One-node communities kept per step, as FastToG keeps them (its ``leaves.kept``).
LEAF_SLOTS = 3
MAX_SENTENCE_REPLY_CHARS = 1200
PROMPT = (
    "Write the facts below as one or two fluent English sentences. Mention every name "
    "exactly as written and add no other names or facts. Reply with the sentences only.\n\n"
    "Facts:\n{facts}"
)


def _facts(triples: Sequence[Sequence[str]]) -> str:
    return "\n".join(f"- {h} | {relation_text(r)} | {t}" for h, r, t in triples)


def synthesize(
    store: GraphStore,
    entities: Sequence[str],
    llm: ChatLLM,
    n: int = 100,
    seed: int = 0,
    max_triples: int = 6,
) -> list[dict[str, Any]]:
    """Up to ``n`` guarded pairs from communities around ``entities`` (seeded order)."""
    rng = random.Random(seed)
    order = list(dict.fromkeys(entities))
    rng.shuffle(order)
    config = LCSConfig(max_community_size=4)
    rows: list[dict[str, Any]] = []
    for index, entity in enumerate(order):
        if len(rows) >= n:
            break
        if not store.has_node(entity):
            continue
        step = local_community_search(
            store, [entity], config, exclude=[entity], seed=seed + index, leaf_slots=LEAF_SLOTS
        )
        if not step.candidates:
            continue
        # the entity with its nearest communities: a small star-shaped subgraph
        merged = dict.fromkeys(t for c in step.candidates for t in c.all_triples)
        triples = [list(t) for t in list(merged)[:max_triples]]
        if not triples:
            continue
        reply = llm.generate(
            LLMRequest.from_prompt(PROMPT.format(facts=_facts(triples)), purpose="g2t-synth")
        )
        text = " ".join((reply.text or "")[:MAX_SENTENCE_REPLY_CHARS].split())
        if text and check_text(text, triples).ok:
            rows.append({"triples": triples, "texts": [text], "category": "MetaQA"})
    return rows
