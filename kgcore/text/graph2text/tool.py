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


def tool_description(model_name: str | None) -> str:
    """The tools' description, naming the model that writes when it is known.

    >>> tool_description("graph2text-webnlg-smollm2").endswith("(model: graph2text-webnlg-smollm2)")
    True
    """
    return f"{TOOL_DESCRIPTION} (model: {model_name})" if model_name else TOOL_DESCRIPTION


def guarded_textualizer(
    model: str | None = None, *, url: str | None = None, token: str | None = None
) -> GuardedTextualizer:
    """The tools' textualizer: a running server (``url``), the model folder or Hub id given,
    else the default model (:func:`~kgcore.text.graph2text.default.default_graph2text`: the
    fine-tuned SmolLM2 where it runs, else the T5, with a warning); its ``model_name`` says
    which."""
    if url is not None:
        from kgcore.text.graph2text.remote import RemoteGraph2Text

        return GuardedTextualizer(RemoteGraph2Text(url, token).generate, model_name=f"server {url}")
    if model is not None:
        from kgcore.text.graph2text.model import Graph2Text

        return GuardedTextualizer(Graph2Text.from_pretrained(model).generate, model_name=model)
    from kgcore.text.graph2text.default import default_graph2text

    loaded, name = default_graph2text()
    return GuardedTextualizer(loaded.generate, model_name=name)


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
