"""A run's cost cap: at most ``max_llm_calls`` model calls and ``max_prompt_tokens`` prompt
tokens per question, the same for every method.

:func:`within_budget` sits between a method's step generator and whatever drives it (the
guard of :mod:`kgcore.methods.base` puts it around every method's run). It counts the requests
it passes on and their prompt tokens: those the model reports, else an estimate of
:data:`CHARS_PER_TOKEN` characters a token (:func:`estimated_prompt_tokens`). When the next
request would take the run past a limit, that request and every later one are not sent: the
method receives an empty reply marked ``sent=False`` (which no meter counts), takes its
documented path for an unusable reply, and so ends with its best answer so far (CoT-SC: the
majority of the samples it has; a graph method: its fallback, else ``Unknown``). The result
records which limit stopped it, ``extra["budget_exhausted"]`` (``"max_llm_calls"`` or
``"max_prompt_tokens"``); the key is absent when the budget was not spent.

Example
-------
>>> from kgcore.llm import LLMRequest, ScriptedLLM, run_steps
>>> from kgcore.methods.result import MethodResult
>>> def chatty():
...     texts = []
...     for _ in range(5):
...         reply = yield LLMRequest.from_prompt("say something", purpose="io")
...         texts.append(reply.text)
...     return MethodResult(question="q", answer=" ".join(texts).strip(), method="demo")
>>> llm = ScriptedLLM.by_purpose({"io": ["a", "b"]}, repeat_last=True)
>>> result = run_steps(within_budget(chatty(), Budget(max_llm_calls=2)), llm)
>>> result.answer, result.extra["budget_exhausted"]
('a b', 'max_llm_calls')
>>> Budget(max_llm_calls=0)
Traceback (most recent call last):
...
kgcore.exceptions.InvalidSettingError: Budget setting max_llm_calls=0 is out of range: ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypeVar

from kgcore.exceptions import InvalidSettingError
from kgcore.llm.protocol import LLMReply, LLMRequest, Steps
from kgcore.settings import Settings, checked_settings
from kgcore.validation import BUDGET_LIMITS

__all__ = [
    "BUDGET_KEY",
    "CHARS_PER_TOKEN",
    "Budget",
    "check_budget",
    "estimated_prompt_tokens",
    "within_budget",
]

T = TypeVar("T")

#: The result's ``extra`` key naming the limit that stopped a run.
BUDGET_KEY = "budget_exhausted"
#: Characters a prompt token is estimated at, where the model reports no counts.
CHARS_PER_TOKEN = 4


@checked_settings("Budget", limits=BUDGET_LIMITS)
@dataclass(frozen=True)
class Budget(Settings):
    """A per-question cost cap; ``None`` leaves a limit off.

    Parameters
    ----------
    max_llm_calls : int or None
        Model calls per question at most (1 to 100000).
    max_prompt_tokens : int or None
        Prompt tokens per question at most: the model's reported counts, else estimated at
        :data:`CHARS_PER_TOKEN` characters a token (1 to 10**12).

    >>> Budget(max_llm_calls=2.5)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: Budget setting max_llm_calls must be an integer ...
    """

    max_llm_calls: int | None = None
    max_prompt_tokens: int | None = None

    @property
    def unlimited(self) -> bool:
        """Whether no limit is set."""
        return self.max_llm_calls is None and self.max_prompt_tokens is None

    def refusal(self, calls: int, prompt_tokens: int, next_tokens: int) -> str | None:
        """The limit a next request of ``next_tokens`` prompt tokens would pass, after ``calls``
        calls and ``prompt_tokens`` tokens; ``None`` when it may be sent.

        >>> Budget(max_llm_calls=2).refusal(2, 0, 10)
        'max_llm_calls'
        >>> Budget(max_prompt_tokens=50).refusal(1, 40, 9) is None
        True
        """
        if self.max_llm_calls is not None and calls + 1 > self.max_llm_calls:
            return "max_llm_calls"
        if (
            self.max_prompt_tokens is not None
            and prompt_tokens + next_tokens > self.max_prompt_tokens
        ):
            return "max_prompt_tokens"
        return None


def check_budget(value: Any) -> Budget | None:
    """``value`` as a run's budget: a :class:`Budget`, ``None`` (no cap), or a mapping of its
    settings (``{"max_llm_calls": 2}``); anything else is an
    :class:`~kgcore.exceptions.InvalidSettingError`.

    >>> check_budget({"max_llm_calls": 3}).max_llm_calls
    3
    """
    if value is None or isinstance(value, Budget):
        return value
    if isinstance(value, dict):
        return Budget(**value)
    raise InvalidSettingError(
        f"budget must be a Budget, a dict of its settings or None, got {type(value).__name__}"
    )


def estimated_prompt_tokens(request: LLMRequest) -> int:
    """The prompt tokens of ``request``, estimated at :data:`CHARS_PER_TOKEN` characters each.

    >>> estimated_prompt_tokens(LLMRequest.from_prompt("x" * 10, purpose="io"))
    3
    """
    return math.ceil(len(request.prompt_text) / CHARS_PER_TOKEN)


def _mark(result: Any, reason: str) -> None:
    extra = getattr(result, "extra", None)
    if isinstance(extra, dict):
        extra[BUDGET_KEY] = reason


def within_budget(steps: Steps[T], budget: Budget | None) -> Steps[T]:
    """Drive ``steps`` within ``budget`` (see the module's text); ``None`` or an unlimited
    budget passes every request on unchanged."""
    if budget is None or budget.unlimited:
        return (yield from steps)
    calls = prompt_tokens = 0
    spent: str | None = None
    try:
        request = next(steps)
        while True:
            estimate = estimated_prompt_tokens(request)
            spent = spent or budget.refusal(calls, prompt_tokens, estimate)
            if spent is not None:
                reply = LLMReply(text="", sent=False)
            else:
                reply = yield request
                calls += 1
                reported = reply.prompt_tokens
                prompt_tokens += (
                    reported if isinstance(reported, int) and reported >= 0 else estimate
                )
            request = steps.send(reply)
    except StopIteration as stop:
        if spent is not None:
            _mark(stop.value, spent)
        return stop.value
