"""Prompt-only baselines: IO, chain-of-thought (CoT) and CoT with self-consistency (CoT-SC).

They answer from the model's own knowledge and serve as FastToG's fallback after ``D_max``.
CoT-SC samples ``n`` CoT replies at a temperature and keeps the majority answer (answers are
compared after :func:`~kgcore.evaluation.metrics.normalize_answer`).

Example
-------
>>> from kgcore.llm import ScriptedLLM, run_steps
>>> run_steps(io_steps("who directed [Cleopatra]"), ScriptedLLM(["{Joseph L. Mankiewicz}"])).answer
'Joseph L. Mankiewicz'
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from kgcore.evaluation.metrics import normalize_answer
from kgcore.llm.parsing import parse_answer
from kgcore.llm.protocol import (
    LLMRequest,
    Steps,
    UsageMeter,
)
from kgcore.methods.base import StepMethod
from kgcore.methods.result import MethodResult
from kgcore.validation import COT_SC_LIMITS, check_question, check_settings

T = TypeVar("T")

UNKNOWN = "Unknown"
# No literal example answer: the local model copied "{A | B}" from an earlier wording.
ANSWER_SYSTEM = (
    "You answer questions concisely. Put the final answer in braces; "
    "separate several answers with |."
)


def io_request(question: str, temperature: float = 0.1, max_tokens: int = 64) -> LLMRequest:
    """IO prompting: ask for the answer directly."""
    return LLMRequest.from_prompt(
        f"Question: {question}\nAnswer in braces:",
        purpose="io",
        system=ANSWER_SYSTEM,
        temperature=temperature,
        max_tokens=max_tokens,
    )


def cot_request(question: str, temperature: float = 0.1, max_tokens: int = 192) -> LLMRequest:
    """Chain-of-thought prompting: brief reasoning, then the answer in braces."""
    return LLMRequest.from_prompt(
        f"Question: {question}\nThink step by step in at most three short sentences, "
        "then give the final answer in braces.",
        purpose="cot",
        system=ANSWER_SYSTEM,
        temperature=temperature,
        max_tokens=max_tokens,
    )


def prompt_only_steps(question: str, request: LLMRequest, method: str) -> Steps[MethodResult]:
    """Ask one prompt; an unparseable or empty reply leaves the answer ``Unknown``."""
    started = time.perf_counter()
    usage = UsageMeter()
    reply = yield request
    usage.add(reply)
    answer = parse_answer(reply.text) or UNKNOWN
    result = MethodResult(question=question, answer=answer, method=method)
    result.record_usage(usage)
    result.total_seconds = time.perf_counter() - started
    return result


def io_steps(question: str) -> Steps[MethodResult]:
    """The IO baseline as a step generator (see :mod:`kgcore.llm.protocol`)."""
    question = check_question(question)
    return (yield from prompt_only_steps(question, io_request(question), "io"))


def cot_steps(question: str) -> Steps[MethodResult]:
    """The CoT baseline as a step generator."""
    question = check_question(question)
    return (yield from prompt_only_steps(question, cot_request(question), "cot"))


def majority_answer(answers: list[str], seed: int | None = 0) -> tuple[str, int]:
    """The most frequent answer (by normalised form) and its vote count.

    ``Unknown`` answers only win when nothing else was said. Ties are broken by a seeded
    shuffle of the candidates, so a run repeats exactly; the original spelling of the
    first reply with the winning form is returned.

    Example
    -------
    >>> majority_answer(["Paris", "paris.", "Lyon"])
    ('Paris', 2)
    """
    known = [a for a in answers if a != UNKNOWN]
    if not known:
        return UNKNOWN, len(answers)
    votes = Counter(normalize_answer(a) for a in known)
    best = max(votes.values())
    tied = sorted(form for form, count in votes.items() if count == best)
    winner = tied[0] if len(tied) == 1 else random.Random(seed).choice(tied)
    spelling = next(a for a in known if normalize_answer(a) == winner)
    return spelling, best


def cot_sc_steps(
    question: str,
    n: int = 5,
    temperature: float = 0.7,
    seed: int | None = 0,
    max_tokens: int = 192,
) -> Steps[MethodResult]:
    """CoT with self-consistency: ``n`` sampled CoT replies, majority vote over their answers.

    Parameters
    ----------
    question : str
        The question.
    n : int
        How many replies to sample (``n`` LLM calls).
    temperature : float
        Sampling temperature of every reply.
    seed : int, optional
        Breaks ties between equally frequent answers reproducibly.
    max_tokens : int
        Cap on each reply.

    Example
    -------
    >>> from kgcore.llm import ScriptedLLM, run_steps
    >>> llm = ScriptedLLM(["So {Lyon}", "{Paris}", "It is {paris}"])
    >>> run_steps(cot_sc_steps("capital of France?", n=3), llm).answer
    'Paris'
    """
    question = check_question(question)
    if n < 1:
        raise ValueError("n must be at least 1")
    check_settings("CoT-SC", {"n": n, "max_tokens": max_tokens}, COT_SC_LIMITS)
    started = time.perf_counter()
    usage = UsageMeter()
    base = cot_request(question, temperature=temperature, max_tokens=max_tokens)
    request = replace(base, purpose="cot_sc")
    answers: list[str] = []
    for _ in range(n):
        reply = yield request
        usage.add(reply)
        answers.append(parse_answer(reply.text) or UNKNOWN)
    answer, votes = majority_answer(answers, seed=seed)
    result = MethodResult(question=question, answer=answer, method="cot-sc")
    result.record_usage(usage)
    result.extra.update({"samples": answers, "votes": votes})
    result.total_seconds = time.perf_counter() - started
    return result


def ask_parsed(
    request: LLMRequest,
    parse: Callable[[str], T | None],
    reminder: str,
    usage: UsageMeter,
) -> Steps[T | None]:
    """Ask once; if ``parse`` finds nothing usable, ask once more with a format reminder.

    Returns the parsed value, or ``None`` when the second reply is unusable too, so the caller
    decides how to go on (methods never crash on a bad reply).

    Example
    -------
    >>> from kgcore.llm import ScriptedLLM, run_steps
    >>> llm = ScriptedLLM(["I am not sure.\\nMaybe.", "{42}"])
    >>> run_steps(ask_parsed(io_request("q"), parse_answer, "Braces!", UsageMeter()), llm)
    '42'
    """
    reply = yield request
    usage.add(reply)
    parsed = parse(reply.text)
    if parsed is None:
        reply = yield request.with_reminder(reply.text, reminder)
        usage.add(reply)
        parsed = parse(reply.text)
    return parsed


def answer_steps(question: str, usage: UsageMeter, max_tokens: int = 160) -> Steps[str]:
    """The CoT fallback used by the graph methods: one CoT call, ``Unknown`` if unparseable."""
    reply = yield cot_request(question, max_tokens=max_tokens)
    usage.add(reply)
    return parse_answer(reply.text) or UNKNOWN


class PromptBaseline(StepMethod[MethodResult]):
    """IO, CoT or CoT-SC as an engine with the same shape as the graph methods.

    ``topic_entities`` is accepted and ignored, so the evaluation harness and the LangChain
    runnables can treat every method alike.

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
            raise ValueError(f"kind must be one of {', '.join(self.KINDS)}, got {kind!r}")
        self.name = kind
        self.n = n
        self.temperature = temperature
        self.seed = seed

    def steps(self, question: str, topic_entities: object = None) -> Steps[MethodResult]:
        """The baseline as a step generator."""
        if self.name == "io":
            return io_steps(question)
        if self.name == "cot":
            return cot_steps(question)
        return cot_sc_steps(question, n=self.n, temperature=self.temperature, seed=self.seed)
