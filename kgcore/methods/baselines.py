"""Prompt-only baselines: IO, chain-of-thought (CoT) and CoT with self-consistency (CoT-SC),
and the echo baseline (no model at all).

They answer from the model's own knowledge. Their step generators live in the kernel
(:mod:`kgcore.methods.kernel.steps`), since the graph methods fall back on them; this module
gives them the engine shape of the graph methods (:class:`PromptBaseline`). CoT-SC samples
``n`` CoT replies at a temperature and keeps the majority answer (compared after
:func:`~kgcore.text.answer_forms.normalize_answer`). :class:`EchoBaseline` answers the
question's first topic entity with no LLM call: what echoing the question alone scores.

Example
-------
>>> from kgcore.llm import ScriptedLLM, run_steps
>>> from kgcore.methods.kernel import io_steps
>>> run_steps(io_steps("who directed [Cleopatra]"), ScriptedLLM(["{Joseph L. Mankiewicz}"])).answer
'Joseph L. Mankiewicz'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import kgcore.validation as validation
from kgcore.exceptions import InvalidSettingError
from kgcore.llm.protocol import Steps
from kgcore.methods.base import StepMethod
from kgcore.methods.kernel import cot_sc_steps, cot_steps, io_steps, topic_names
from kgcore.methods.result import MethodResult
from kgcore.settings import Settings, checked_settings
from kgcore.validation import COT_SC_LIMITS

__all__ = ["CoTSCConfig", "EchoBaseline", "PromptBaseline"]


@checked_settings("CoT-SC", limits=COT_SC_LIMITS)
@dataclass(frozen=True)
class CoTSCConfig(Settings):
    """CoT-SC's settings: ``n`` sampled replies (``n`` calls) at ``temperature``, each with seed
    ``seed + i``.

    >>> CoTSCConfig(n=2.5)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: CoT-SC setting n must be an integer, got 2.5
    """

    n: int = 5
    temperature: float = 0.7
    seed: int | None = 0


class PromptBaseline(StepMethod[MethodResult]):
    """IO, CoT or CoT-SC as an engine with the same shape as the graph methods.

    ``topic_entities`` are only used to refuse an answer that names one (the model does not
    see them), so the evaluation harness and the LangChain runnables treat every method alike.

    Example
    -------
    >>> from kgcore.llm import ScriptedLLM
    >>> PromptBaseline("io").run("capital of France?", ScriptedLLM(["{Paris}"])).answer
    'Paris'
    """

    KINDS = ("io", "cot", "cot-sc")

    def __init__(
        self,
        kind: str = "cot",
        n: int = 5,
        temperature: float = 0.7,
        seed: int | None = 0,
    ) -> None:
        if kind not in self.KINDS:
            raise InvalidSettingError(f"kind must be one of {', '.join(self.KINDS)}, got {kind!r}")
        self.name = kind
        self.config = CoTSCConfig(n=n, temperature=temperature, seed=seed)  # checked here
        self.n = self.config.n
        self.temperature = self.config.temperature
        self.seed = self.config.seed

    def steps(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[MethodResult]:
        """The baseline as a step generator (an answer naming a topic entity is ``Unknown``)."""
        if self.name == "io":
            return io_steps(question, topic_entities)
        if self.name == "cot":
            return cot_steps(question, topic_entities)
        return cot_sc_steps(
            question,
            n=self.n,
            temperature=self.temperature,
            seed=self.seed,
            topic_entities=topic_entities,
        )


class EchoBaseline(StepMethod[MethodResult]):
    """Answers the question's first topic entity (the given ones, else the bracketed names),
    ``Unknown`` without one, and asks no model: the score of echoing the question alone.

    Example
    -------
    >>> from kgcore.llm import ScriptedLLM
    >>> echo = EchoBaseline()
    >>> echo.run("what is the recording of [Indiana] 's recording ?", ScriptedLLM([])).answer
    'Indiana'
    >>> echo.run("who directed it?", ScriptedLLM([]), ["Giant", "Shane"]).llm_calls
    0
    """

    name = "echo"

    def steps(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[MethodResult]:
        """A step generator that yields no request and returns the first topic entity."""
        yield from ()
        topics = topic_names(question, topic_entities)
        return MethodResult(
            question=question, answer=topics[0] if topics else validation.UNKNOWN, method="echo"
        )
