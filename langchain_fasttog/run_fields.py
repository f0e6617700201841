"""The run settings every LangChain retriever and chain takes: the model's deadline and retry
policy (the CLI's ``--llm-timeout``), and how many questions may be in flight at once.

- ``llm_timeout``: seconds each model call may take (the default policy's 120 s when left
  out); a call past it is retried, then the step fails as the retry policy says.
- ``retry``: a whole :class:`~kgcore.llm.protocol.RetryPolicy` (attempts, backoff,
  ``on_failure``, ``max_abandoned``: the threads a model that never returns may hold at most);
  ``llm_timeout`` replaces its ``timeout``.
- ``max_concurrency``: questions this object runs at once at most (``None``: no limit); the
  others wait their turn (``invoke`` across threads, ``ainvoke`` per event loop).

Example
-------
>>> RunFields(llm_timeout=5).retry_policy().timeout
5.0
>>> RunFields(max_concurrency=0)
Traceback (most recent call last):
...
kgcore.exceptions.InvalidSettingError: max_concurrency must be None or an integer >= 1: 0
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, PrivateAttr, field_validator

from kgcore.concurrency import InFlightLimit
from kgcore.llm.protocol import RetryPolicy, retry_policy
from langchain_fasttog.fields import KGModel

__all__ = ["ConcurrencyFields", "RunFields"]


class ConcurrencyFields(KGModel):
    """``max_concurrency`` (module docstring): the setting of a retriever that asks no model."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    max_concurrency: int | None = None
    _in_flight: InFlightLimit = PrivateAttr(default_factory=InFlightLimit)

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self._in_flight = InFlightLimit(self.max_concurrency)

    @property
    def in_flight(self) -> InFlightLimit:
        """The questions in flight (``max_concurrency``)."""
        return self._in_flight


class RunFields(ConcurrencyFields):
    """``llm_timeout``, ``retry`` and ``max_concurrency`` (module docstring)."""

    llm_timeout: float | None = None
    retry: RetryPolicy | None = None

    @field_validator("llm_timeout", mode="after")
    @classmethod
    def _check_timeout(cls, value: float | None) -> float | None:
        retry_policy(timeout=value)  # the policy's own check
        return value

    def retry_policy(self) -> RetryPolicy:
        """The policy the model calls run under."""
        return retry_policy(self.retry, self.llm_timeout)
