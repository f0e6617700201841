"""FastToG's reasoning step alone, replayed on the depth-1 facts of recorded MetaQA runs.

The fast loop for the reasoning prompt: no graph search and no pruning, one LLM call per
question. From a FastToG trace file (``kgqa eval`` JSONL), every question that ended at depth 1
gives its facts (the start community, then one community per chain); the reasoning prompt is
sent with them and the reply scored:

- ``in_hit``: the gold answer is in the facts, and the reply names it (hit@1);
- ``out_unknown``: the gold answer is not in the facts, and the reply is ``Unknown`` (so
  FastToG would read on rather than guess);
- ``wrong``: any other named answer that misses;
- completion tokens and seconds per reply.

``--prompt before`` is the reasoning prompt before issue 9's change (question first, a films
example), ``--prompt inline`` the one of its first change (facts first, an inline language
example), ``--prompt two`` its first two demonstration exchanges alone, ``--prompt three``
the first three (the prompt before the fourth, "also" demonstration), ``--prompt instructed``
all four with the instruction after the question (before it moved into the system message),
``--prompt now`` the current one (four demonstration exchanges first, the instruction in the
system message); the demonstrations' facts are today's (one sentence per subject and relation);
``--no-grounding`` keeps answers the facts do not hold. The figures in the deviations
(``docs/research/fasttog_deviations.md``) came from the traces committed before the change::

    git show ee45d4b:benchmarks/results/fasttog__metaqa-2hop.jsonl > /tmp/fasttog_2hop.jsonl
    .venv/bin/python benchmarks/fasttog_reason_replay.py /tmp/fasttog_2hop.jsonl --prompt now

and those of the three-step demonstration from the 3-hop traces committed before it::

    git show ea48eea:benchmarks/results/fasttog__metaqa-3hop.jsonl > /tmp/fasttog_3hop.jsonl
    .venv/bin/python benchmarks/fasttog_reason_replay.py /tmp/fasttog_3hop.jsonl --prompt two

Last line: ``fasttog_reason_replay prompt=… n=… in_hit=…/… out_unknown=…/… wrong=…
completion_tokens=… seconds=…``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from kgcore.methods.fasttog.prompts import REASON_DEMOS, parse_braced_answer, reason_request
from kgcore.methods.kernel import drop_topic_answer, grounded_answer, topic_names
from kgcore.text.answer_forms import contains_answer
from kgeval.metrics import hit_at_1
from langchain_fasttog.llm import LangChainLLM
from langchain_fasttog.models import paper_sampling, resolve_chat_model

#: The reasoning prompt before issue 9's change, with its films example inlined.
BEFORE_PROMPT = (
    "Question: {question}\n"
    "Example. Question: which films share the director of [Film A]? Facts: 1. Film A directed "
    "by Person B. 2. Film C directed by Person B. Steps: the director of Film A is Person B "
    "(fact 1); Person B also directed Film C (fact 2). Answer: {{Film C}}\n"
    "Facts:\n{facts}\n"
    "Break the question into steps and answer each step from the numbered facts, briefly. "
    "Then give the final answer names from the facts in braces, separated by ';'. "
    "If the facts are not enough, reply {{Unknown}}."
)
#: The prompt of issue 9's first change: facts first, one inline example asking for a language
#: (answered ``{{Z}}``), no demonstration exchanges.
INLINE_PROMPT = (
    "Facts:\n{facts}\n"
    "Question: {question}\n"
    'Example reply, for the question "what language are the films of [Actor X] in": '
    "Steps: Actor X starred in Film Y (fact 1); Film Y is in language Z (fact 2). Answer: {{Z}}\n"
    "Break the question into steps and answer each from the facts, in one short line. "
    "Then give the answer names from the facts in braces, separated by ';'. "
    "If the facts do not reach the answer, reply {{Unknown}}."
)
#: The system message before the instruction moved into it (every prompt above carries its own).
BRACKETS_SYSTEM = (
    "You answer questions from knowledge-graph facts. The answer is never the entity in brackets."
)
#: The reasoning prompt with the instruction after the question, as before it moved into the
#: system message (``--prompt instructed``, ``two``, ``three``).
INSTRUCTED_PROMPT = (
    "Facts:\n{facts}\n"
    "Question: {question}\n"
    "Break the question into steps and answer each from the facts, in one short line. "
    "Then give the answer names from the facts in braces, separated by ';'. "
    "If the facts do not reach the answer, reply {{Unknown}}."
)
_BEFORE = {"template": INSTRUCTED_PROMPT, "system": BRACKETS_SYSTEM}
#: Template, demonstrations and system message by ``--prompt``; ``now`` is FastToG's default.
PROMPTS: dict[str, dict[str, Any]] = {
    "now": {},
    "instructed": _BEFORE,
    "two": {**_BEFORE, "demos": REASON_DEMOS[:2]},
    "three": {**_BEFORE, "demos": REASON_DEMOS[:3]},
    "inline": {"template": INLINE_PROMPT, "demos": (), "system": BRACKETS_SYSTEM},
    "before": {"template": BEFORE_PROMPT, "demos": (), "system": BRACKETS_SYSTEM},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", type=Path, help="a FastToG trace file (kgqa eval JSONL)")
    parser.add_argument("--prompt", choices=tuple(PROMPTS), default="now")
    parser.add_argument("--no-grounding", action="store_true")
    parser.add_argument("--n", type=int, default=0, help="questions at most (0: all)")
    parser.add_argument("--llm", default="local")
    args = parser.parse_args(argv)

    rows = [json.loads(line) for line in args.traces.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r.get("depth") == 1 and r.get("context")]
    if args.n:
        rows = rows[: args.n]
    chat = resolve_chat_model(args.llm)
    llm = LangChainLLM(chat, sampling=paper_sampling(args.llm))
    counts = {"in": 0, "in_hit": 0, "out": 0, "out_unknown": 0, "wrong": 0}
    tokens, seconds = 0, 0.0
    for row in rows:
        start, *communities = row["context"].split("\n")
        request = reason_request(
            row["question"], start, [[c] for c in communities], **PROMPTS[args.prompt]
        )
        began = time.perf_counter()
        reply = llm.generate(request)
        seconds += time.perf_counter() - began
        tokens += reply.completion_tokens or 0
        topics = topic_names(row["question"], row.get("topic_entities") or [])
        answer = drop_topic_answer(parse_braced_answer(reply.text), topics)
        if not args.no_grounding:
            answer = grounded_answer(answer, row["context"], topics)
        hit = answer is not None and hit_at_1(answer, row["answers"])
        held = any(contains_answer(row["context"], gold) for gold in row["answers"])
        counts["in" if held else "out"] += 1
        counts["in_hit"] += held and hit
        counts["out_unknown"] += (not held) and answer is None
        counts["wrong"] += answer is not None and not hit
        verdict = "hit" if hit else "unknown" if answer is None else "wrong"
        print(f"{'in ' if held else 'out'} {verdict:7s} | {row['question'][:60]} | {answer!r:.60}")
    n = max(1, len(rows))
    print(
        f"fasttog_reason_replay prompt={args.prompt} grounding={not args.no_grounding} "
        f"n={len(rows)} in_hit={counts['in_hit']}/{counts['in']} "
        f"out_unknown={counts['out_unknown']}/{counts['out']} wrong={counts['wrong']} "
        f"completion_tokens={tokens / n:.0f} seconds={seconds / n:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
