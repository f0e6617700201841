"""Prompt pieces every method shares: system prompts, how triples and options are shown,
the IO and CoT requests, and how one step is kept in a trace.

Example
-------
>>> options_text(["directed_by", "starred_actors"])
'A. directed_by\\nB. starred_actors'
>>> io_request("who directed [Cleopatra]").purpose
'io'
"""

from __future__ import annotations

import string
from collections.abc import Sequence

from kgcore.llm.protocol import LLMReply, LLMRequest
from kgcore.types import Triple
from kgcore.validation import UNKNOWN

__all__ = [
    "ANSWER_SYSTEM",
    "GRAPH_SYSTEM",
    "MAX_RECORDED_PRUNED",
    "MAX_TRACE_REPLY",
    "UNKNOWN",
    "cot_request",
    "io_request",
    "options_text",
    "relation_text",
    "step_record",
    "triple_text",
]

# No literal example answer: the local model copied "{A | B}" from an earlier wording.
ANSWER_SYSTEM = (
    "You answer questions concisely. Put the final answer in braces; "
    "separate several answers with |."
)
#: The system prompt of the graph methods' pruning, matching and answering steps.
GRAPH_SYSTEM = (
    "You help answer questions over a knowledge graph. Reply briefly in the asked format."
)
#: Dropped candidates kept per depth in ``result.extra["explored"]`` (for pictures).
MAX_RECORDED_PRUNED = 24
#: Raw replies kept per step in a trace (characters).
MAX_TRACE_REPLY = 2000


def relation_text(relation: str, outgoing: bool) -> str:
    """How a relation is shown from one side: ``"directed_by"`` or ``"directed_by (reverse)"``.

    >>> relation_text("directed_by", outgoing=False)
    'directed_by (reverse)'
    """
    return relation if outgoing else f"{relation} (reverse)"


def triple_text(triple: Triple) -> str:
    """``(head, relation, tail)`` as the prompts show it.

    >>> triple_text(Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"))
    '(Cleopatra, directed_by, Joseph L. Mankiewicz)'
    """
    return f"({triple.head}, {triple.relation}, {triple.tail})"


def options_text(options: Sequence[str]) -> str:
    """``A. first`` / ``B. second`` lines (at most 26 options)."""
    return "\n".join(f"{string.ascii_uppercase[i]}. {o}" for i, o in enumerate(options))


def io_request(question: str, temperature: float = 0.1, max_tokens: int = 64) -> LLMRequest:
    """IO prompting: ask for the answer directly."""
    return LLMRequest.from_prompt(
        f"Question: {question}\nAnswer in braces:",
        purpose="io",
        system=ANSWER_SYSTEM,
        temperature=temperature,
        max_tokens=max_tokens,
    )


def cot_request(question: str, temperature: float = 0.1, max_tokens: int = 192) -> LLMRequest:
    """Chain-of-thought prompting: brief reasoning, then the answer in braces.

    >>> cot_request("q", max_tokens=160).max_tokens
    160
    """
    return LLMRequest.from_prompt(
        f"Question: {question}\nThink step by step in at most three short sentences, "
        "then give the final answer in braces.",
        purpose="cot",
        system=ANSWER_SYSTEM,
        temperature=temperature,
        max_tokens=max_tokens,
    )


def step_record(request: LLMRequest, reply: LLMReply, **extra: object) -> dict[str, object]:
    """One LLM step for a trace: its purpose, the raw reply (capped) and what was offered.

    >>> step_record(io_request("q"), LLMReply("{x}"), offered=2)
    {'purpose': 'io', 'reply': '{x}', 'offered': 2}
    """
    return {"purpose": request.purpose, "reply": reply.text[:MAX_TRACE_REPLY], **extra}
