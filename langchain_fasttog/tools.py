"""``Graph2TextTool``: Graph2Text as a LangChain tool (triples in, guarded text out).

Example
-------
>>> from langchain_fasttog.tools import Graph2TextTool
>>> tool = Graph2TextTool.from_model()   # the default model, or a folder / Hub id  # doctest: +SKIP
>>> tool.invoke({"triples": [["Alan Bean", "occupation", "Test pilot"]]})  # doctest: +SKIP
'Alan Bean was a test pilot.'
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field

from kgcore.text.graph2text.guard import GuardedTextualizer
from kgcore.text.graph2text.tool import (
    TOOL_DESCRIPTION,
    TOOL_NAME,
    guarded_textualizer,
    tool_description,
    triples_to_text,
)


class Graph2TextInput(BaseModel):
    """The tool's arguments."""

    triples: list[list[str]] = Field(
        description="[subject, predicate, object] triples, e.g. [['Alan Bean', 'occupation', "
        "'Test pilot']]"
    )


class Graph2TextTool(BaseTool):
    """Knowledge-graph triples to text with Graph2Text behind the hallucination guard.

    ``textualizer`` is a :class:`~kgcore.text.graph2text.guard.GuardedTextualizer` over a local
    :class:`~kgcore.text.graph2text.Graph2Text` or a ``RemoteGraph2Text``; see
    :meth:`from_model` and :meth:`from_server`.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    name: str = TOOL_NAME
    description: str = TOOL_DESCRIPTION
    args_schema: type[BaseModel] = Graph2TextInput
    textualizer: Any

    @classmethod
    def from_model(cls, name_or_path: str | None = None, **options: Any) -> Graph2TextTool:
        """A tool over a local model folder or Hub id (``options`` go to Graph2Text); without
        one, the default model (the fine-tuned SmolLM2 where the ``g2t`` extra and its base
        model are installed, else the T5 with a warning). The description names the model."""
        if name_or_path is None:
            from kgcore.text.graph2text.default import default_graph2text

            loaded, name = default_graph2text(**options)
        else:
            from kgcore.text.graph2text import Graph2Text

            loaded, name = Graph2Text.from_pretrained(name_or_path, **options), name_or_path
        return cls.from_textualizer(GuardedTextualizer(loaded.generate, model_name=name))

    @classmethod
    def from_server(cls, url: str, token: str | None = None) -> Graph2TextTool:
        """A tool over a running ``kgqa g2t serve``."""
        return cls.from_textualizer(guarded_textualizer(url=url, token=token))

    @classmethod
    def from_textualizer(cls, textualizer: GuardedTextualizer) -> Graph2TextTool:
        """A tool over a guarded textualizer; its ``model_name`` goes into the description."""
        model_name = getattr(textualizer, "model_name", None)
        return cls(textualizer=textualizer, description=tool_description(model_name))

    def _run(self, triples: list[list[str]], **kwargs: Any) -> str:
        return triples_to_text(triples, self.textualizer)
