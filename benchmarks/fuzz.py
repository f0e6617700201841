"""Fuzz every method with generated model replies: no crash, no hang, no garbage answer.

Each run asks one method (FastToG, FastToG node-level, ToG, CGPE, IO, CoT, CoT-SC) one question
about a topic entity of the MetaQA graph, answered by a scripted model whose replies are drawn
by a seeded generator: random text and bytes, huge replies (up to 100,000 characters), deeply
nested brackets, unicode oddities (U+0085, U+2028, lone surrogates, bidi overrides), chat
special tokens, and well-formed replies naming real options and nodes. Methods take turns
until the time is up.

* crash: any exception (a scripted model never fails, so even an ``LLMResponseError`` counts);
* hang: a run over 2 s;
* garbage answer: anything but ``Unknown`` that is not a printable phrase of at most 300
  characters free of special tokens (checked here with ``str.isprintable``, independently of
  the library's own guard).

Usage::

    .venv/bin/python benchmarks/fuzz.py [--seconds 240] [--seed 0] [--kg PATH]

The last line reads ``fuzz runs=<n> crashes=<n> hangs=<n> garbage_answers=<n>``;
the goal is 0/0/0 over at least 1,000 runs.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from kgcore.evaluation.datasets import default_data_dir
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMRequest, ScriptedLLM
from kgcore.methods.baselines import PromptBaseline
from kgcore.methods.cgpe import CGPE
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.methods.tog import ToG

HANG_SECONDS = 2.0
MAX_ANSWER = 300
SPECIAL = ["<|im_end|>", "<|endoftext|>", "<|im_start|>assistant", "</s>", "[INST]", "<pad>"]
ODD = ["\u0085", "\u2028", "\u2029", "\ud800", "\udfff", "\u202e", "\ufeff", "\x00", "\x1b[2J"]
_SPECIAL_RE = re.compile(r"<\|[^<>|]{0,40}\|>|</?s>|\[/?INST\]|<pad>", re.IGNORECASE)


def is_garbage(answer: object) -> bool:
    """Whether an answer is neither ``Unknown`` nor a short printable phrase."""
    if answer == "Unknown":
        return False
    if not isinstance(answer, str):
        return True
    text = answer.strip()
    return (
        not text
        or len(text) > MAX_ANSWER
        or not text.isprintable()
        or bool(_SPECIAL_RE.search(text))
        or not any(ch.isalnum() for ch in text)
    )


def reply_generator(rng: random.Random, names: list[str]) -> Callable[[LLMRequest], str]:
    """A scripted model's reply function drawing from every family of bad replies."""

    def reply(request: LLMRequest) -> str:
        kind = rng.randrange(12)
        if kind == 0:
            return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(300)))
        if kind == 1:
            return rng.randbytes(rng.randrange(1, 400)).decode("latin-1")
        if kind == 2:
            return rng.choice(["x", "{", "[", "A", "é", "{A}"]) * rng.randrange(1000, 100_001)
        if kind == 3:
            depth = rng.randrange(100, 5000)
            return rng.choice(["[", "{", "(", '["']) * depth + rng.choice(["", "]" * depth])
        if kind == 4:
            return "{" + rng.choice(SPECIAL) + "}" + rng.choice(["", " {A}", rng.choice(SPECIAL)])
        if kind == 5:
            name = rng.choice(names)
            cut = rng.randrange(len(name) + 1)
            return "{" + name[:cut] + rng.choice(ODD) + name[cut:] + "}"
        if kind == 6:
            listed = ", ".join(f'"{rng.choice(names)}"' for _ in range(rng.randrange(1, 1000)))
            return f"[{listed}]"
        if kind == 7:
            letters = ", ".join(
                f"{chr(65 + rng.randrange(26))}: {rng.random():.2f}" for _ in range(4)
            )
            return "{" + letters + "}"
        if kind == 8:
            return rng.choice(["Yes {", "No", "{Unknown}", "{none}", "{1, 2}", "Answer: "]) + (
                rng.choice(names) + "}"
            )
        if kind == 9:
            return "{" + rng.choice(names) + "}"
        if kind == 10:
            return "\n".join(rng.choice(names) for _ in range(rng.randrange(1, 50)))
        return ""

    return reply


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=240.0, help="time budget (240)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kg", type=Path, default=default_data_dir() / "metaqa" / "kb.txt")
    args = parser.parse_args(argv)

    store = InMemoryGraphStore.from_file(args.kg, progress=False)
    # Build the store's one-time caches (name index, triple count) before timing: they are a
    # cost of loading the graph, not of any question.
    store.num_triples()
    store.search_nodes("warm-up", limit=1)
    rng = random.Random(args.seed)
    nodes = sorted(store.graph.nodes)
    names = [nodes[rng.randrange(len(nodes))] for _ in range(200)]
    methods: dict[str, object] = {
        "fasttog": FastToG(store, FastToGConfig()),
        "fasttog-node": FastToG(store, FastToGConfig.node_level()),
        "tog": ToG(store),
        "cgpe": CGPE(store),
        "io": PromptBaseline("io"),
        "cot": PromptBaseline("cot"),
        "cot-sc": PromptBaseline("cot-sc", n=5),
    }
    counts: Counter[str] = Counter()
    per_method: Counter[str] = Counter()
    slowest = 0.0
    started = time.perf_counter()
    while time.perf_counter() - started < args.seconds:
        for label, method in methods.items():
            topic = rng.choice(names)
            question = rng.choice(
                [f"what is related to [{topic}]", f"tell me about {topic}", f"who is {topic}?"]
            )
            topics = [topic] if rng.random() < 0.3 else None
            llm = ScriptedLLM(reply_generator(random.Random(rng.random()), names))
            tick = time.perf_counter()
            try:
                result = method.run(question, llm, topics)  # type: ignore[attr-defined]
            except Exception:  # noqa: BLE001 - counting crashes is the point
                counts["crashes"] += 1
                print(f"crash in {label}:\n{traceback.format_exc()}", file=sys.stderr)
                result = None
            seconds = time.perf_counter() - tick
            slowest = max(slowest, seconds)
            counts["runs"] += 1
            per_method[label] += 1
            if seconds > HANG_SECONDS:
                counts["hangs"] += 1
                print(f"hang in {label}: {seconds:.1f} s", file=sys.stderr)
            if result is not None and is_garbage(result.answer):
                counts["garbage_answers"] += 1
                print(f"garbage from {label}: {result.answer[:80]!r}", file=sys.stderr)
    print("runs per method: " + ", ".join(f"{k}={v}" for k, v in per_method.items()))
    print(f"slowest run {slowest:.2f} s")
    print(
        f"fuzz runs={counts['runs']} crashes={counts['crashes']} hangs={counts['hangs']} "
        f"garbage_answers={counts['garbage_answers']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
