"""The framework-free body of the Graph2Text agent tools (LangChain and LlamaIndex).

A tool call's arguments come from a model: they are checked (at most
:data:`MAX_TOOL_TRIPLES` triples of three non-empty strings) and a bad call gets a message
the agent can act on instead of an exception.

Example
-------
>>> from kgcore.text.graph2text.guard import GuardedTextualizer
>>> guarded = GuardedTextualizer(lambda cs: ["Alan Bean was a test pilot." for _ in cs])
>>> triples_to_text([["Alan Bean", "occupation", "Test pilot"]], guarded)
'Alan Bean was a test pilot.'
>>> triples_to_text([["Alan Bean", "occupation"]], guarded)
'error: triple 0 must be [subject, predicate, object] strings'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgcore.text.graph2text.guard import GuardedTextualizer
from kgcore.types import Triple

MAX_TOOL_TRIPLES = 32
TOOL_NAME = "graph2text"
TOOL_DESCRIPTION = (
    "Write knowledge-graph triples as fluent English sentences. Input: a list of "
    "[subject, predicate, object] triples. Every entity is kept; names not in the triples "
    "are never added (otherwise a rule-based sentence per triple is returned)."
)


def triples_to_text(triples: Any, textualizer: GuardedTextualizer) -> str:
    """The guarded text for ``triples`` or an ``error: ...`` message for a bad call."""
    if not isinstance(triples, Sequence) or isinstance(triples, str) or not triples:
        return "error: pass a non-empty list of [subject, predicate, object] triples"
    if len(triples) > MAX_TOOL_TRIPLES:
        return f"error: at most {MAX_TOOL_TRIPLES} triples per call, got {len(triples)}"
    clean: list[Triple] = []
    for index, triple in enumerate(triples):
        if (
            isinstance(triple, str)
            or not isinstance(triple, Sequence)
            or len(triple) != 3
            or not all(isinstance(p, str) and p.strip() for p in triple)
        ):
            return f"error: triple {index} must be [subject, predicate, object] strings"
        clean.append(Triple(*(p.strip() for p in triple)))
    nodes = list(dict.fromkeys(n for h, _, t in clean for n in (h, t)))
    return textualizer(nodes, clean)
