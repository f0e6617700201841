"""What every QA method returns, so the evaluation harness can compare them.

Example
-------
>>> r = MethodResult(question="q", answer="a", method="io")
>>> r.to_dict()["answer"], r.answered
('a', True)
>>> from kgcore.validation import UNKNOWN
>>> MethodResult(question="q", answer=UNKNOWN, method="io").to_dict()["answered"]
False
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgcore.llm.protocol import UsageMeter
from kgcore.validation import is_unknown_answer


@dataclass
class MethodResult:
    """The common part of every method's result.

    ``context`` is the knowledge the method retrieved, as text (empty for IO/CoT); the harness
    measures answer recall on it. ``prompt_tokens``/``completion_tokens`` are ``None`` when the
    model does not report them.

    ``grounded`` says whether the answer is a node of what the method retrieved from the graph,
    or ``Unknown``. It is ``False`` only for an answer from the model's own knowledge, which
    the method is allowed by design: the IO, CoT and CoT-SC baselines, the IO/CoT/CoT-SC
    fallback of FastToG, ToG and CGPE, FastToG with ``grounded_answers=False``, and
    G-Retriever's answer among the choices a question offers (``'support' or 'counter'``).
    Such an answer has passed the sanity check
    (:func:`~kgcore.methods.kernel.answer_sanity.sane_answer`: no markup, code or JSON
    debris, refusal, option label, score or bare number, a bounded length), else it is
    ``Unknown``.

    ``answered`` says whether the method answered: ``False`` exactly when ``answer`` is the
    typed "no answer" :data:`~kgcore.validation.UNKNOWN` (which reads ``Unknown``). A node
    named ``Unknown``, ``None`` or ``N/A`` is an answer (``answered=True``) and is scored as
    one; :meth:`to_dict` writes ``answered`` beside ``answer``.
    """

    question: str
    answer: str
    method: str
    llm_calls: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    depth: int = 0
    fell_back: bool = False
    grounded: bool = True
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

    @property
    def answered(self) -> bool:
        """Whether the method answered (``answer`` is not :data:`~kgcore.validation.UNKNOWN`)."""
        return not is_unknown_answer(self.answer)

    def to_dict(self) -> dict[str, Any]:
        """The fields, with ``answered`` (whether ``answer`` is an answer, not ``Unknown``)."""
        data = asdict(self)
        data["answered"] = self.answered
        return data

    def draw(self, path: str | Path, **options: Any) -> Path:
        """Draw the explored paths of a ToG or CGPE run (see :func:`kgcore.visualize.draw_paths`).

        IO and CoT explore no graph: their results raise
        :class:`~kgcore.visualize.NothingToDrawError`.
        """
        from kgcore.visualize.paths import draw_paths  # matplotlib only when drawing

        return draw_paths(self, path, **options)
