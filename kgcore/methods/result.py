"""What every QA method returns, so the evaluation harness can compare them, and the
evidence its answer rests on (what the adapters turn into Documents and nodes).

Example
-------
>>> r = MethodResult(question="q", answer="a", method="io")
>>> r.to_dict()["answer"], r.answered
('a', True)
>>> r = MethodResult(question="q", answer="b", method="tog", context="(a, r, b)\\n(a, s, c)")
>>> [(e.text, e.metadata["supports_answer"]) for e in r.evidence()]
[('(a, r, b)', True), ('(a, s, c)', False)]
>>> from kgcore.validation import UNKNOWN
>>> MethodResult(question="q", answer=UNKNOWN, method="io").to_dict()["answered"]
False
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgcore.llm.protocol import UsageMeter
from kgcore.validation import is_unknown_answer

#: Keys of ``extra`` that every piece of a run's evidence carries when the run has them.
EVIDENCE_EXTRA_KEYS = ("topic_entities", "clues", "used_clues")


@dataclass(frozen=True)
class Evidence:
    """One piece of what a method reasoned over: its text (as the prompt showed it) and what
    it holds (``metadata``: the run's answer and cost, and ``supports_answer``, whether the text
    names the answer)."""

    text: str
    metadata: dict[str, Any]


def answer_names(answer: str) -> list[str]:
    """The names of an answer (``"A; B"`` names two); none for ``Unknown``.

    >>> from kgcore.validation import UNKNOWN
    >>> answer_names("Frank Liu; Grace Kim"), answer_names(UNKNOWN)
    (['Frank Liu', 'Grace Kim'], [])
    """
    if is_unknown_answer(answer):
        return []
    return [name for name in (part.strip() for part in answer.split(";")) if name]


def names_any(names: Sequence[str], text: str, nodes: Iterable[str] = ()) -> bool:
    """Whether one of ``names`` is among ``nodes`` or written in ``text`` (any case)."""
    lowered = text.casefold()
    return bool(set(names) & set(nodes)) or any(n.casefold() in lowered for n in names)


def supporting_first(items: Sequence[Evidence]) -> list[Evidence]:
    """``items`` with those that name the answer first, each group in its own order."""
    return sorted(items, key=lambda e: not e.metadata["supports_answer"])


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

    def run_metadata(self) -> dict[str, Any]:
        """What every piece of this run's evidence says of the run: the answer, whether it
        fell back or is grounded, the depth, the LLM calls and tokens, the method
        (``source``), and the topic entities and clues when the run has them."""
        meta: dict[str, Any] = {
            "answer": self.answer,
            "answered": self.answered,
            "depth": self.depth,
            "fell_back": self.fell_back,
            "grounded": self.grounded,
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "source": self.method,
        }
        meta.update({k: list(self.extra[k]) for k in EVIDENCE_EXTRA_KEYS if k in self.extra})
        return meta

    def evidence(self) -> list[Evidence]:
        """The facts the method reasoned over, those that name the answer first: CGPE's
        explored paths (``extra["paths"]``), else each line of ``context`` (ToG's kept triples,
        G-Retriever's subgraph). Each piece's metadata is :meth:`run_metadata` with
        ``supports_answer``."""
        texts = self.extra.get("paths") or [line for line in self.context.splitlines() if line]
        names = answer_names(self.answer)
        run = self.run_metadata()
        return supporting_first(
            [Evidence(str(t), {**run, "supports_answer": names_any(names, str(t))}) for t in texts]
        )

    def draw(self, path: str | Path, **options: Any) -> Path:
        """Draw the explored paths of a ToG or CGPE run (see :func:`kgcore.visualize.draw_paths`).

        IO and CoT explore no graph: their results raise
        :class:`~kgcore.visualize.NothingToDrawError`.
        """
        from kgcore.visualize.paths import draw_paths  # matplotlib only when drawing

        return draw_paths(self, path, **options)
