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

from collections.abc import Sequence

from kgcore.llm.protocol import LLMRequest

PRUNE_SYSTEM = (
    "You pick which groups of knowledge-graph facts help answer a question. "
    "Reply only with numbers in braces."
)
REASON_SYSTEM = (
    "You answer questions from knowledge-graph facts. The answer is never the entity in brackets."
)
PRUNE_REMINDER = "Reply only with the numbers of your choice in braces, or {none}."
#: Options are numbered: on MetaQA dev questions the local 1.5B model avoided option "A" and
#: often copied option text when options were lettered; with numbers its picks held the
#: relevant group. No example reply is shown: small models copy the example's labels.
OPTION_LABELS = "numbers"


def prune_request(
    question: str,
    premise: str,
    options: Sequence[str],
    max_choices: int,
    temperature: float = 0.4,
    max_tokens: int = 24,
) -> LLMRequest:
    """Fine pruning: choose up to ``max_choices`` of the numbered options."""
    listed = "\n".join(f"{i}. {text}" for i, text in enumerate(options, start=1))
    if max_choices == 1:
        ask = (
            "Which ONE group has the facts needed to answer the question? "
            "Reply with its number in braces."
        )
    else:
        ask = (
            f"Which groups (up to {max_choices}) have the facts needed to answer the question? "
            "Reply with their numbers in braces."
        )
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
    # Context first, then the question, and a hint for two-step questions: on MetaQA dev
    # questions the local 1.5B model otherwise answered {Unknown} with the answer in the
    # context, or named the middle entity.
    prompt = (
        f"Context:\n{context}\n"
        f"Question: {question}\n"
        "If the question has two steps (e.g. the director of X), find the middle entity first, "
        "then the names linked to it. Reply with the answer names from the context in braces. "
        "If the context lacks them, reply {Unknown}."
    )
    return LLMRequest.from_prompt(
        prompt,
        purpose="reason",
        system=REASON_SYSTEM,
        temperature=temperature,
        max_tokens=max_tokens,
    )
