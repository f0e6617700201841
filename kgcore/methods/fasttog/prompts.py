"""FastToG's prompts: this project's own, on the paper's Premise / Selection / Context structure.

They are kept lean on purpose: on a CPU a local model reads about 85 prompt tokens a second, so
every line of instructions costs time on every call.

Example
-------
>>> request = prune_request("who directed [X]", "X.", ["X directed by Y."], max_choices=1)
>>> request.purpose
'prune'
"""

from __future__ import annotations

import string
from collections.abc import Sequence

from kgcore.llm.protocol import LLMRequest

PRUNE_SYSTEM = (
    "You pick which groups of knowledge-graph facts help answer a question. "
    "Reply only with letters in braces."
)
REASON_SYSTEM = (
    "You answer a question using knowledge-graph facts. Reply only with the answer in braces."
)
PRUNE_REMINDER = "Reply only with the letters of your choice in braces, e.g. {A}, or {none}."


def prune_request(
    question: str,
    premise: str,
    options: Sequence[str],
    max_choices: int,
    temperature: float = 0.4,
    max_tokens: int = 24,
) -> LLMRequest:
    """Fine pruning: choose up to ``max_choices`` options (one letter each)."""
    letters = string.ascii_uppercase
    listed = "\n".join(f"{letters[i]}. {text}" for i, text in enumerate(options))
    if max_choices == 1:
        ask = "Choose the ONE most useful group. Reply like {B}."
    else:
        ask = f"Choose up to {max_choices} most useful groups. Reply like {{A, C}}."
    prompt = (
        f"Question: {question}\n"
        f"Premise: {premise}\n"
        f"Selection:\n{listed}\n"
        f"{ask} If none helps, reply {{none}}."
    )
    return LLMRequest.from_prompt(
        prompt, purpose="prune", system=PRUNE_SYSTEM, temperature=temperature, max_tokens=max_tokens
    )


def reason_request(
    question: str,
    start: str,
    chains: Sequence[Sequence[str]],
    temperature: float = 0.1,
    max_tokens: int = 64,
) -> LLMRequest:
    """Reasoning: the start community once at the top, then each chain's communities."""
    lines = [f"Start: {start}"]
    for index, chain in enumerate(chains, start=1):
        lines.append(f"Chain {index}: " + " ".join(chain))
    context = "\n".join(lines)
    prompt = (
        f"Question: {question}\n"
        f"Context:\n{context}\n"
        "If the context answers the question, reply with the answer in braces, e.g. {Paris}; "
        "several answers: {A | B}. If it does not, reply {Unknown}."
    )
    return LLMRequest.from_prompt(
        prompt, purpose="reason", system=REASON_SYSTEM, temperature=temperature, max_tokens=max_tokens
    )
