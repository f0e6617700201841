"""``Graph2TextTool``: Graph2Text as a LangChain tool (triples in, guarded text out).

Example
-------
>>> from langchain_fasttog.tools import Graph2TextTool
>>> tool = Graph2TextTool.from_model("models/graph2text-webnlg-small")      # doctest: +SKIP
>>> tool.invoke({"triples": [["Alan Bean", "occupation", "Test pilot"]]})  # doctest: +SKIP
'Alan Bean was a test pilot.'
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field

from kgcore.text.graph2text.guard import GuardedTextualizer
from kgcore.text.graph2text.tool import TOOL_DESCRIPTION, TOOL_NAME, triples_to_text


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
    def from_model(cls, name_or_path: str, **options: Any) -> Graph2TextTool:
        """A tool over a local model folder or Hub id (``options`` go to Graph2Text)."""
        from kgcore.text.graph2text import Graph2Text

        model = Graph2Text.from_pretrained(name_or_path, **options)
        return cls(textualizer=GuardedTextualizer(model.generate))

    @classmethod
    def from_server(cls, url: str, token: str | None = None) -> Graph2TextTool:
        """A tool over a running ``kgqa g2t serve``."""
        from kgcore.text.graph2text.remote import RemoteGraph2Text

        return cls(textualizer=GuardedTextualizer(RemoteGraph2Text(url, token).generate))

    def _run(self, triples: list[list[str]], **kwargs: Any) -> str:
        return triples_to_text(triples, self.textualizer)
