"""Graph2Text as a LlamaIndex ``FunctionTool`` (triples in, guarded text out).

Example
-------
>>> from llamaindex_gretriever.tools import graph2text_tool
>>> tool = graph2text_tool()   # the default model; or a folder, a Hub id, url=...  # doctest: +SKIP
>>> tool.call(triples=[["Alan Bean", "occupation", "Test pilot"]]).content  # doctest: +SKIP
'Alan Bean was a test pilot.'
"""

from __future__ import annotations

from llama_index.core.tools import FunctionTool

from kgcore.text.graph2text.guard import GuardedTextualizer
from kgcore.text.graph2text.tool import (
    TOOL_NAME,
    guarded_textualizer,
    tool_description,
    triples_to_text,
)


def graph2text_tool(
    model: str | None = None,
    *,
    url: str | None = None,
    token: str | None = None,
    textualizer: GuardedTextualizer | None = None,
) -> FunctionTool:
    """A ``FunctionTool`` over a model folder / Hub id, a server ``url``, or a textualizer.

    With none of them, the default model writes (the fine-tuned SmolLM2 where the ``g2t``
    extra and its base model are installed, else the T5 with a warning); the tool's
    description ends with ``(model: NAME)``.
    """
    guarded = textualizer or guarded_textualizer(model, url=url, token=token)

    def graph2text(triples: list[list[str]]) -> str:
        """Write [subject, predicate, object] triples as English sentences."""
        return triples_to_text(triples, guarded)

    description = tool_description(getattr(guarded, "model_name", None))
    return FunctionTool.from_defaults(fn=graph2text, name=TOOL_NAME, description=description)


__all__ = ["graph2text_tool"]
