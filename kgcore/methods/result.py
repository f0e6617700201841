"""What every QA method returns, so the evaluation harness can compare them.

Example
-------
>>> r = MethodResult(question="q", answer="a", method="io")
>>> r.to_dict()["answer"]
'a'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgcore.llm.protocol import UsageMeter


@dataclass
class MethodResult:
    """The common part of every method's result.

    ``context`` is the knowledge the method retrieved, as text (empty for IO/CoT); the harness
    measures answer recall on it. ``prompt_tokens``/``completion_tokens`` are ``None`` when the
    model does not report them.
    """

    question: str
    answer: str
    method: str
    llm_calls: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    depth: int = 0
    fell_back: bool = False
    graph_seconds: float = 0.0
    llm_seconds: float = 0.0
    total_seconds: float = 0.0
    context: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def record_usage(self, usage: UsageMeter) -> None:
        """Copy call, token and LLM-time counts from a meter."""
        self.llm_calls = usage.calls
        self.llm_seconds = usage.llm_seconds
        if usage.tokens_reported:
            self.prompt_tokens = usage.prompt_tokens
            self.completion_tokens = usage.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def draw(self, path: str | Path, **options: Any) -> Path:
        """Draw the explored paths of a ToG or CGPE run (see :func:`kgcore.visualize.draw_paths`).

        IO and CoT explore no graph: their results raise
        :class:`~kgcore.visualize.NothingToDrawError`.
        """
        from kgcore.visualize.paths import draw_paths  # matplotlib only when drawing

        return draw_paths(self, path, **options)
