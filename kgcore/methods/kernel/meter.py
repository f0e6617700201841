"""The accounting of one run (LLM usage, graph time), kept the same way by every method."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from kgcore.llm.protocol import Steps, UsageMeter

if TYPE_CHECKING:
    from kgcore.methods.result import MethodResult

__all__ = ["RunMeter"]

T = TypeVar("T")
M = TypeVar("M", bound="MethodResult")


@dataclass
class RunMeter:
    """The accounting of one run, kept the same way by every method.

    LLM calls, tokens and seconds, and the replies a method could not use, are counted in
    :attr:`usage` (see :func:`kgcore.methods.kernel.ask_parsed`); graph work is timed with
    :meth:`graph` or :meth:`graph_steps`; :meth:`finish` copies it all into the result,
    unusable replies as ``extra["unparsed_replies"]``.

    Example
    -------
    >>> from kgcore.methods.result import MethodResult
    >>> meter = RunMeter()
    >>> with meter.graph():
    ...     pass
    >>> result = meter.finish(MethodResult(question="q", answer="a", method="io"))
    >>> result.extra["unparsed_replies"], result.total_seconds >= result.graph_seconds
    (0, True)
    """

    usage: UsageMeter = field(default_factory=UsageMeter)
    started: float = field(default_factory=time.perf_counter)
    graph_seconds: float = 0.0

    @contextmanager
    def graph(self) -> Iterator[None]:
        """Time a block of graph work (no model call inside)."""
        tick = time.perf_counter()
        try:
            yield
        finally:
            self.graph_seconds += time.perf_counter() - tick

    def graph_steps(self, steps: Steps[T]) -> Steps[T]:
        """Drive ``steps`` and count its time, less the model's, as graph time."""
        tick = time.perf_counter()
        llm_before = self.usage.llm_seconds
        value = yield from steps
        spent = time.perf_counter() - tick - (self.usage.llm_seconds - llm_before)
        self.graph_seconds += max(spent, 0.0)
        return value

    def absorb(self, result: MethodResult) -> None:
        """Add the usage of a run made inside this one (a CoT-SC fallback, say)."""
        self.usage.calls += result.llm_calls
        self.usage.llm_seconds += result.llm_seconds
        self.usage.unparsed += int(result.extra.get("unparsed_replies", 0))
        if result.prompt_tokens is not None:
            self.usage.tokens_reported = True
            self.usage.prompt_tokens += result.prompt_tokens
            self.usage.completion_tokens += result.completion_tokens or 0

    def finish(self, result: M) -> M:
        """Copy usage, unusable replies and timings into ``result``; returns it."""
        result.record_usage(self.usage)
        result.extra["unparsed_replies"] = self.usage.unparsed
        result.graph_seconds = self.graph_seconds
        result.total_seconds = time.perf_counter() - self.started
        return result
