"""Step generators every method shares: parse-and-retry, entity linking, the prompt-only
answers (IO, CoT, CoT-SC) that also serve as the graph methods' fallbacks.

Example
-------
>>> from kgcore.llm import ScriptedLLM, run_steps
>>> run_steps(io_steps("who directed [Cleopatra]"), ScriptedLLM(["{Joseph L. Mankiewicz}"])).answer
'Joseph L. Mankiewicz'
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from kgcore.exceptions import EntityNotFoundError
from kgcore.graph.store import GraphStore
from kgcore.linking import (
    bracketed_entities,
    entity_extraction_request,
    link_entities,
)
from kgcore.llm.parsing import parse_entities
from kgcore.llm.protocol import LLMReply, LLMRequest, Steps, UsageMeter
from kgcore.mentions import topic_mentions
from kgcore.methods.kernel.answer_reading import read_answer, topic_names
from kgcore.methods.kernel.meter import RunMeter
from kgcore.methods.kernel.prompts import UNKNOWN, cot_request, io_request, step_record
from kgcore.methods.result import MethodResult
from kgcore.text.answer_forms import normalize_answer
from kgcore.validation import COT_SC_LIMITS, check_question, check_settings, is_unknown_answer

__all__ = [
    "ENTITY_REMINDER",
    "Linked",
    "answer_steps",
    "ask_parsed",
    "cot_sc_steps",
    "cot_steps",
    "io_steps",
    "link_steps",
    "majority_answer",
    "prompt_only_steps",
]

T = TypeVar("T")

#: The format reminder after an entity list that could not be read.
ENTITY_REMINDER = 'Reply only with a JSON list, e.g. ["Ada Lovelace"].'


def _is_parsed(value: object) -> bool:
    return value is not None


def ask_parsed(
    request: LLMRequest,
    parse: Callable[[str], T | None],
    reminder: str,
    usage: UsageMeter,
    usable: Callable[[T | None], bool] = _is_parsed,
    record: Callable[[LLMRequest, LLMReply, T | None, bool], None] | None = None,
) -> Steps[T | None]:
    """Ask once; if the reply is not usable, ask once more with a format reminder.

    Every unusable reply counts in ``usage.unparsed`` (the one count of replies a method
    could not use). Returns the last parsed value -- ``None`` when the second reply cannot
    be read either -- so the caller decides how to go on (methods never crash on a bad reply).
    A request that was not sent (the run's cost cap is spent, ``reply.sent`` is ``False``) is
    not asked again.

    Parameters
    ----------
    request : LLMRequest
        The first request.
    parse : callable
        ``reply text -> value``, ``None`` when nothing usable was found.
    reminder : str
        Appended, with the bad reply, to the second request.
    usage : UsageMeter
        Counts the calls and the unusable replies.
    usable : callable
        Whether a parsed value is usable (default: not ``None``).
    record : callable, optional
        ``(request, reply, parsed, retry)`` after each reply, for traces.

    Example
    -------
    >>> from kgcore.llm import ScriptedLLM, run_steps
    >>> from kgcore.llm.parsing import parse_answer
    >>> usage = UsageMeter()
    >>> llm = ScriptedLLM(["I am not sure.\\nMaybe.", "{42}"])
    >>> run_steps(ask_parsed(io_request("q"), parse_answer, "Braces!", usage), llm)
    '42'
    >>> usage.calls, usage.unparsed
    (2, 1)
    """
    reply = yield request
    usage.add(reply)
    parsed = parse(reply.text)
    if record is not None:
        record(request, reply, parsed, False)
    if usable(parsed) or not reply.sent:  # not sent (the cost cap is spent): no reminder
        return parsed
    usage.unparsed += 1
    retry = request.with_reminder(reply.text, reminder)
    reply = yield retry
    usage.add(reply)
    parsed = parse(reply.text)
    if record is not None:
        record(retry, reply, parsed, True)
    if not usable(parsed):
        usage.unparsed += 1
    return parsed


@dataclass(frozen=True)
class Linked:
    """The outcome of entity linking.

    ``names`` are the mentions (given, bracketed, or extracted by the model), ``nodes`` the
    graph nodes they link to, ``from_model`` whether the model named them.
    """

    names: list[str]
    nodes: list[str]
    from_model: bool


def link_steps(
    store: GraphStore,
    question: str,
    topic_entities: Sequence[str] | None,
    usage: UsageMeter,
    strict: bool = False,
    reminder: str = ENTITY_REMINDER,
) -> Steps[Linked]:
    """Entity linking, the same step for every method.

    The caller's ``topic_entities`` are linked, else the question's bracketed names; with
    ``strict`` one name that cannot be linked raises, without it only all of them failing
    does (:class:`~kgcore.exceptions.EntityNotFoundError`). Without any, the nodes the
    question mentions as a user writes them are taken (:func:`~kgcore.mentions.
    topic_mentions`: the graph's names, case, accents, initials and punctuation set aside, or
    part of a longer name; the longest mention first); without those the model extracts them
    (one call, one retry), each linked, else read for mentions; names that still name no node
    link to nothing, so the method answers by its fallback.

    Example
    -------
    >>> from kgcore.graph import InMemoryGraphStore
    >>> from kgcore.llm import ScriptedLLM, run_steps
    >>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J")])
    >>> run_steps(link_steps(store, "who directed [cleopatra]", None, UsageMeter()),
    ...           ScriptedLLM([])).nodes
    ['Cleopatra']
    """
    names = list(topic_entities) if topic_entities else bracketed_entities(question)
    if names:
        return Linked(names, link_entities(store, names, strict=strict), False)
    written = topic_mentions(store, question)  # the graph's own names, no model
    if written:
        return Linked(written, written, False)
    extracted = yield from ask_parsed(
        entity_extraction_request(question),
        lambda text: parse_entities(text) or None,
        reminder,
        usage,
    )
    names = extracted or []
    try:
        nodes = link_entities(store, names, strict=False) if names else []
    except EntityNotFoundError:
        # Not the graph's names: their mentions ("martin luther king"), else the fallback.
        nodes = list(dict.fromkeys(n for name in names for n in topic_mentions(store, name)))
    return Linked(names, nodes, True)


def answer_steps(
    question: str,
    usage: UsageMeter,
    max_tokens: int = 160,
    record: Callable[[LLMRequest, LLMReply, object, bool], None] | None = None,
    topics: Sequence[str] = (),
) -> Steps[str]:
    """The CoT fallback used by the graph methods: one CoT call read by
    :func:`~kgcore.methods.kernel.read_answer` (``topics`` are no answer), ``Unknown`` when
    it gives none. The answer is the model's own (sane, not grounded): the caller's result
    says ``grounded=False``.

    ``record`` (e.g. :meth:`StepTrace.recorder`) sees the request, the reply and the answer.
    """
    request = cot_request(question, max_tokens=max_tokens)
    reply = yield request
    usage.add(reply)
    answer = read_answer(reply.text, topics, question=question)
    if record is not None:
        record(request, reply, answer, False)
    return answer or UNKNOWN


def prompt_only_steps(
    question: str,
    request: LLMRequest,
    method: str,
    topic_entities: Sequence[str] | None = None,
) -> Steps[MethodResult]:
    """Ask one prompt; an unparseable or empty reply, a topic entity or an answer that is not
    sane (:func:`~kgcore.methods.kernel.answer_sanity.sane_answer`) leaves ``Unknown``. The
    answer is the model's own: the result says ``grounded=False``."""
    meter = RunMeter()
    reply = yield request
    meter.usage.add(reply)
    topics = topic_names(question, topic_entities)
    answer = read_answer(reply.text, topics, question=question) or UNKNOWN
    result = MethodResult(question=question, answer=answer, method=method, grounded=False)
    result.extra["steps"] = [step_record(request, reply)]
    return meter.finish(result)


def io_steps(question: str, topic_entities: Sequence[str] | None = None) -> Steps[MethodResult]:
    """The IO baseline as a step generator (see :mod:`kgcore.llm.protocol`)."""
    question = check_question(question)
    return (yield from prompt_only_steps(question, io_request(question), "io", topic_entities))


def cot_steps(question: str, topic_entities: Sequence[str] | None = None) -> Steps[MethodResult]:
    """The CoT baseline as a step generator."""
    question = check_question(question)
    return (yield from prompt_only_steps(question, cot_request(question), "cot", topic_entities))


def majority_answer(answers: list[str], seed: int | None = 0) -> tuple[str, int]:
    """The most frequent answer (by normalised form) and its vote count.

    ``Unknown`` answers (:data:`~kgcore.validation.UNKNOWN`) only win when nothing else was
    said. Ties are broken by a seeded
    shuffle of the candidates, so a run repeats exactly; the original spelling of the
    first reply with the winning form is returned.

    Example
    -------
    >>> majority_answer(["Paris", "paris.", "Lyon"])
    ('Paris', 2)
    """
    known = [a for a in answers if not is_unknown_answer(a)]
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
    topic_entities : sequence of str, optional
        Names that are no answer (see :func:`~kgcore.methods.kernel.drop_topic_answer`).

    Example
    -------
    >>> from kgcore.llm import ScriptedLLM, run_steps
    >>> llm = ScriptedLLM(["So {Lyon}", "{Paris}", "It is {paris}"])
    >>> run_steps(cot_sc_steps("capital of France?", n=3), llm).answer
    'Paris'
    """
    question = check_question(question)
    check_settings("CoT-SC", {"n": n, "max_tokens": max_tokens}, COT_SC_LIMITS)
    meter = RunMeter()
    base = cot_request(question, temperature=temperature, max_tokens=max_tokens)
    request = replace(base, purpose="cot_sc")
    topics = topic_names(question, topic_entities)
    answers: list[str] = []
    steps: list[dict[str, object]] = []
    for index in range(n):
        sample = replace(request, seed=(seed or 0) + index)
        reply = yield sample
        meter.usage.add(reply)
        steps.append(step_record(sample, reply, seed=sample.seed))
        answers.append(read_answer(reply.text, topics, question=question) or UNKNOWN)
    answer, votes = majority_answer(answers, seed=seed)
    result = MethodResult(question=question, answer=answer, method="cot-sc", grounded=False)
    result.extra.update({"samples": answers, "votes": votes, "steps": steps})
    return meter.finish(result)
