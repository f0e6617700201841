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
from collections.abc import Callable, Sequence
from typing import Any

from kgcore.llm.protocol import LLMReply, LLMRequest
from kgcore.methods.kernel.progress import report_step
from kgcore.text.relations import Verbalizer, verbalize_relation
from kgcore.types import Triple
from kgcore.validation import UNKNOWN

__all__ = [
    "ANSWER_SYSTEM",
    "GRAPH_SYSTEM",
    "MAX_RECORDED_PRUNED",
    "MAX_TRACE_REPLY",
    "UNKNOWN",
    "StepTrace",
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


def relation_text(relation: str, outgoing: bool, verbalize: Verbalizer = verbalize_relation) -> str:
    """How a relation is shown from one side, through ``verbalize``
    (:func:`~kgcore.text.relations.verbalize_relation` by default).

    >>> relation_text("directed_by", outgoing=False)
    'directed by (reverse)'
    >>> relation_text("people.person.place_of_birth", outgoing=True)
    'place of birth'
    """
    text = verbalize(relation)
    return text if outgoing else f"{text} (reverse)"


def triple_text(triple: Triple, verbalize: Verbalizer = verbalize_relation) -> str:
    """``(head, relation, tail)`` as the prompts show it, the relation through ``verbalize``.

    >>> triple_text(Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"))
    '(Cleopatra, directed by, Joseph L. Mankiewicz)'
    """
    return f"({triple.head}, {verbalize(triple.relation)}, {triple.tail})"


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

    The record is reported to this context's step listeners as it is made
    (:func:`~kgcore.methods.kernel.progress.listening_to_steps`).

    >>> step_record(io_request("q"), LLMReply("{x}"), offered=2)
    {'purpose': 'io', 'reply': '{x}', 'offered': 2}
    """
    return report_step({"purpose": request.purpose, "reply": reply.text[:MAX_TRACE_REPLY], **extra})


def _jsonable(value: Any, depth: int = 0) -> Any:
    """A parsed reply as JSON-friendly data (dict keys as text, tuples as lists, bounded)."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value[:MAX_TRACE_REPLY]
    if depth < 3 and isinstance(value, dict):
        return {str(k): _jsonable(v, depth + 1) for k, v in list(value.items())[:64]}
    if depth < 3 and isinstance(value, (list, tuple)):
        return [_jsonable(v, depth + 1) for v in list(value)[:64]]
    return repr(value)[:MAX_TRACE_REPLY]


class StepTrace:
    """Every LLM step of one run, in order, for the method's trace (``extra["steps"]``).

    Each record holds the step's purpose, the raw reply (capped), whether it was the format
    retry, what the method read from it (``parsed``: ``None`` when unusable) and what was
    offered (the options shown), so a miss can be explained from the trace alone.

    Example
    -------
    >>> trace = StepTrace()
    >>> record = trace.recorder(offered=["directed_by", "release_year"])
    >>> record(io_request("q"), LLMReply("{A: 1.0}"), {0: 1.0}, False)
    >>> trace.steps[0]["parsed"], trace.steps[0]["offered"]
    ({'0': 1.0}, ['directed_by', 'release_year'])
    """

    def __init__(self) -> None:
        self.steps: list[dict[str, object]] = []

    def recorder(self, **extra: object) -> Callable[[LLMRequest, LLMReply, object, bool], None]:
        """A ``record`` callback for :func:`~kgcore.methods.kernel.steps.ask_parsed`."""
        shown = {k: _jsonable(v) for k, v in extra.items()}

        def record(request: LLMRequest, reply: LLMReply, parsed: object, retry: bool) -> None:
            self.steps.append(
                step_record(request, reply, retry=retry, parsed=_jsonable(parsed), **shown)
            )

        return record
