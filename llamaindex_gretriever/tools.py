"""Graph2Text as a LlamaIndex ``FunctionTool`` (triples in, guarded text out).

Example
-------
>>> from llamaindex_gretriever.tools import graph2text_tool
>>> tool = graph2text_tool("models/graph2text-webnlg-small")                 # doctest: +SKIP
>>> tool.call(triples=[["Alan Bean", "occupation", "Test pilot"]]).content  # doctest: +SKIP
'Alan Bean was a test pilot.'
"""

from __future__ import annotations

from llama_index.core.tools import FunctionTool

from kgcore.text.graph2text.guard import GuardedTextualizer
from kgcore.text.graph2text.tool import TOOL_DESCRIPTION, TOOL_NAME, triples_to_text


def graph2text_tool(
    model: str | None = None,
    *,
    url: str | None = None,
    token: str | None = None,
    textualizer: GuardedTextualizer | None = None,
) -> FunctionTool:
    """A ``FunctionTool`` over a model folder / Hub id, a server ``url``, or a textualizer."""
    if textualizer is None:
        if url is not None:
            from kgcore.text.graph2text.remote import RemoteGraph2Text

            textualizer = GuardedTextualizer(RemoteGraph2Text(url, token).generate)
        else:
            from kgcore.text.graph2text import Graph2Text
            from kgcore.text.registry import DEFAULT_G2T_MODEL

            g2t = Graph2Text.from_pretrained(model or DEFAULT_G2T_MODEL)
            textualizer = GuardedTextualizer(g2t.generate)
    guarded = textualizer

    def graph2text(triples: list[list[str]]) -> str:
        """Write [subject, predicate, object] triples as English sentences."""
        return triples_to_text(triples, guarded)

    return FunctionTool.from_defaults(fn=graph2text, name=TOOL_NAME, description=TOOL_DESCRIPTION)


__all__ = ["graph2text_tool"]
