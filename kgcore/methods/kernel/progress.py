"""Step records as they happen: listeners that see each record a method adds to its trace.

A method keeps every step in its trace (``extra["steps"]``), but the trace is read only when
the run ends, minutes later on a local model. :func:`listening_to_steps` registers a listener
for the runs made inside it (in this context: the thread, or the task and the worker threads
it starts); each record a method makes (:func:`~kgcore.methods.kernel.prompts.step_record`,
or one without an LLM call, e.g. a choice by similarity) is passed to the listener as soon as
it is made. The CLI prints them, the LangChain adapters send them as custom events and
``stream()`` chunks. Listeners nest: an inner one is called after the outer ones. A listener
gets a copy of the record, and an exception it raises ends the run.

Example
-------
>>> seen = []
>>> with listening_to_steps(seen.append):
...     _ = report_step({"purpose": "prune", "picked": [0]})
>>> seen
[{'purpose': 'prune', 'picked': [0]}]
>>> _ = report_step({"purpose": "reason"})  # no listener: nothing happens
>>> len(seen)
1
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["StepListener", "listening_to_steps", "report_step"]

#: A callable that receives one step record.
StepListener = Callable[[dict[str, object]], None]

_LISTENERS: ContextVar[tuple[StepListener, ...]] = ContextVar("kg_step_listeners", default=())


@contextmanager
def listening_to_steps(listener: StepListener) -> Iterator[None]:
    """Pass every step record made in this context to ``listener`` (see the module's text)."""
    token = _LISTENERS.set((*_LISTENERS.get(), listener))
    try:
        yield
    finally:
        _LISTENERS.reset(token)


def report_step(record: dict[str, object]) -> dict[str, object]:
    """Pass ``record`` (a copy of it) to this context's listeners; returns ``record``."""
    for listener in _LISTENERS.get():
        listener(dict(record))
    return record
