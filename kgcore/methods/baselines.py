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
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from kgcore.evaluation.metrics import normalize_answer
from kgcore.linking import bracketed_entities
from kgcore.llm.parsing import parse_answer
from kgcore.llm.protocol import (
    LLMReply,
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


def topic_names(question: str, topic_entities: Sequence[str] | None = None) -> list[str]:
    """The question's topic entities: those given, and those written in brackets."""
    return list(dict.fromkeys([*(topic_entities or ()), *bracketed_entities(question)]))


def drop_topic_answer(answer: str | None, topics: Sequence[str]) -> str | None:
    """``None`` when ``answer`` is one of the question's topic entities (not an answer).

    Compared after :func:`~kgcore.evaluation.metrics.normalize_answer`; every method applies
    it, so "The Tale of Despereaux" is no answer to a question about [The Tale of Despereaux].

    >>> drop_topic_answer("the Giant", ["Giant"]) is None, drop_topic_answer("Shane", ["Giant"])
    (True, 'Shane')
    """
    if answer is None:
        return None
    forms = {normalize_answer(t) for t in topics}
    return None if normalize_answer(answer) in forms else answer


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


def prompt_only_steps(
    question: str,
    request: LLMRequest,
    method: str,
    topic_entities: Sequence[str] | None = None,
) -> Steps[MethodResult]:
    """Ask one prompt; an unparseable or empty reply, or a topic entity, leaves ``Unknown``."""
    started = time.perf_counter()
    usage = UsageMeter()
    reply = yield request
    usage.add(reply)
    topics = topic_names(question, topic_entities)
    answer = drop_topic_answer(parse_answer(reply.text), topics) or UNKNOWN
    result = MethodResult(question=question, answer=answer, method=method)
    result.record_usage(usage)
    result.extra["steps"] = [step_record(request, reply)]
    result.total_seconds = time.perf_counter() - started
    return result


def io_steps(question: str, topic_entities: Sequence[str] | None = None) -> Steps[MethodResult]:
    """The IO baseline as a step generator (see :mod:`kgcore.llm.protocol`)."""
    question = check_question(question)
    return (yield from prompt_only_steps(question, io_request(question), "io", topic_entities))


def cot_steps(question: str, topic_entities: Sequence[str] | None = None) -> Steps[MethodResult]:
    """The CoT baseline as a step generator."""
    question = check_question(question)
    return (yield from prompt_only_steps(question, cot_request(question), "cot", topic_entities))


#: Raw replies kept per step in a trace (characters).
MAX_TRACE_REPLY = 2000


def step_record(request: LLMRequest, reply: LLMReply, **extra: object) -> dict[str, object]:
    """One LLM step for a trace: its purpose, the raw reply (capped) and what was offered."""
    return {"purpose": request.purpose, "reply": reply.text[:MAX_TRACE_REPLY], **extra}


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
    topic_entities: Sequence[str] | None = None,
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
        Sample ``i`` asks the model with seed ``seed + i`` (with one seed for every call,
        llama.cpp returned the same sample five times); also breaks vote ties reproducibly.
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
    topics = topic_names(question, topic_entities)
    answers: list[str] = []
    steps: list[dict[str, object]] = []
    for index in range(n):
        sample = replace(request, seed=(seed or 0) + index)
        reply = yield sample
        usage.add(reply)
        steps.append(step_record(sample, reply, seed=sample.seed))
        answers.append(drop_topic_answer(parse_answer(reply.text), topics) or UNKNOWN)
    answer, votes = majority_answer(answers, seed=seed)
    result = MethodResult(question=question, answer=answer, method="cot-sc")
    result.record_usage(usage)
    result.extra.update({"samples": answers, "votes": votes, "steps": steps})
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
            raise ValueError(f"kind must be one of {', '.join(self.KINDS)}, got {kind!r}")
        self.name = kind
        self.n = n
        self.temperature = temperature
        self.seed = seed

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
