"""Retrying failing model calls: which errors may heal, the policy, and one run's bookkeeping.

Transient errors (connection, timeout, rate limit, HTTP 408/429/5xx) are retried with
exponential backoff and seeded jitter, as a :class:`RetryPolicy` says; errors that cannot heal
(authentication, bad request, and any other error a model raises: ``RuntimeError``,
``KeyError``, ``MemoryError``, ...) are not, and end at once as an
:class:`~kgcore.exceptions.LLMResponseError` naming the step. When the budget is spent the drivers
(:mod:`kgcore.llm.protocol.driver`) raise :class:`~kgcore.exceptions.LLMResponseError` naming
the step and the cause, or, with ``on_failure="fallback"``, answer the step with an empty reply
so the method takes its documented path for an unusable reply (its fallback, else ``Unknown``).

Example
-------
>>> is_transient(ConnectionResetError())
True
>>> RetryPolicy(attempts=1).delays()
[]
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from kgcore.exceptions import InvalidSettingError, KGRetrieverError, LLMResponseError
from kgcore.llm.protocol.types import LLMReply, LLMRequest
from kgcore.llm.protocol.workers import DEFAULT_MAX_ABANDONED

__all__ = [
    "DEFAULT_LLM_TIMEOUT",
    "DEFAULT_RETRY",
    "FAILURE_MODES",
    "TRANSIENT_STATUS",
    "RetryPolicy",
    "describe_error",
    "is_transient",
    "retry_policy",
]

#: Seconds a model call may take unless a policy says otherwise: every call has a deadline.
#: Generous for a local model on a loaded CPU (a long FastToG reasoning prompt takes tens of
#: seconds), and it still ends a call to a model that never returns.
DEFAULT_LLM_TIMEOUT = 300.0
#: The longest deadline a policy accepts (seconds).
MAX_LLM_TIMEOUT = 600.0

#: HTTP statuses worth another try (timeout, conflict, too early, rate limit, server errors).
TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
# kgcore imports no provider SDK (openai, anthropic, httpx, ...), so their errors are told
# apart by class name along the MRO and by HTTP status.
_PERMANENT_NAMES = (
    "authentication",
    "permissiondenied",
    "unauthorized",
    "forbidden",
    "badrequest",
    "invalidrequest",
    "notfound",
    "unprocessable",
)
_TRANSIENT_NAMES = (
    "ratelimit",
    "timeout",
    "timedout",
    "apiconnection",
    "serviceunavailable",
    "internalserver",
    "overloaded",
    "temporar",
    "remoteprotocol",
)
FAILURE_MODES = ("raise", "fallback")


def is_transient(error: BaseException) -> bool:
    """Whether another try may succeed: connection, timeout, rate limit or a 5xx status.

    Authentication, permission and bad-request errors (HTTP 4xx) never heal, nor do this
    project's own errors.

    >>> is_transient(ConnectionResetError()), is_transient(TimeoutError())
    (True, True)
    >>> class AuthenticationError(Exception): status_code = 401
    >>> is_transient(AuthenticationError()), is_transient(ValueError("bad"))
    (False, False)
    """
    if isinstance(error, KGRetrieverError):
        return False
    status = getattr(error, "status_code", None)
    if status is None:
        status = getattr(getattr(error, "response", None), "status_code", None)
    if isinstance(status, int) and not isinstance(status, bool):
        return status in TRANSIENT_STATUS or status >= 500
    names = [cls.__name__.lower() for cls in type(error).__mro__]
    if any(word in name for name in names for word in _PERMANENT_NAMES):
        return False
    if isinstance(error, (ConnectionError, TimeoutError)):  # asyncio.TimeoutError included
        return True
    return any(word in name for name in names for word in _TRANSIENT_NAMES)


#: Characters of a model's error message quoted in ours at most.
MAX_ERROR_CHARS = 300


def describe_error(error: BaseException) -> str:
    """``Type: message`` of a model's error, its message cut to :data:`MAX_ERROR_CHARS`; total,
    even for an error whose ``str()`` raises.

    >>> describe_error(KeyError("answer")), describe_error(ValueError("x" * 500))[-4:]
    ("KeyError: 'answer'", 'x...')
    """
    try:
        message = str(error)
    except Exception:  # noqa: BLE001 - a model's error may not even print
        message = "<unprintable message>"
    if len(message) > MAX_ERROR_CHARS:
        message = message[:MAX_ERROR_CHARS] + "..."
    return f"{type(error).__name__}: {message}"


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


@dataclass(frozen=True)
class RetryPolicy:
    """How the drivers retry a failing model call.

    Parameters
    ----------
    attempts : int
        Calls per request at most (1 to 10; 1 = no retry).
    base_delay, max_delay : float
        Before retry ``k`` (1, 2, ...) the driver waits ``min(max_delay, base_delay * 2**(k-1))``
        times a seeded jitter factor in [0.5, 1) (``max_delay`` at most 60 s).
    timeout : float or None
        Seconds one call may take (at most 600; default :data:`DEFAULT_LLM_TIMEOUT`, 300):
        each attempt is cut off after it, and a timeout is transient (retried). Asynchronous
        models are cancelled; a synchronous one runs in a reusable worker thread that the
        driver stops waiting for, setting the request's ``cancel`` event (a model that checks
        it, as the local llama.cpp model does, ends the call and frees the worker; it also
        receives :attr:`LLMRequest.timeout`). ``None``: no deadline, the call runs in the
        caller's thread and may wait forever.
    max_abandoned : int
        Calls a synchronous model may leave running past their deadline at most (1 to 64,
        default 2): a model that neither returns nor honours ``cancel`` keeps that many worker
        threads, and a call beyond them is refused at once with a transient
        :class:`~kgcore.llm.protocol.workers.ModelStuckError` instead of taking a new thread
        (:func:`~kgcore.llm.protocol.workers.worker_stats` counts them).
    on_failure : {"raise", "fallback"}
        After the budget: raise :class:`~kgcore.exceptions.LLMResponseError`, or answer the
        step with an empty reply so the method falls back (later calls of the same run then
        get one attempt each, without waiting).
    seed : int
        Seeds the jitter, so a run waits the same way every time.
    sleep : callable
        How to wait (replaced in tests).

    Example
    -------
    >>> policy = RetryPolicy(attempts=3, base_delay=0.5)
    >>> [round(d, 2) for d in policy.delays()]
    [0.46, 0.88]
    """

    attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    timeout: float | None = DEFAULT_LLM_TIMEOUT
    max_abandoned: int = DEFAULT_MAX_ABANDONED
    on_failure: str = "raise"
    seed: int = 0
    sleep: Callable[[float], None] = field(default=_sleep, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not 1 <= self.attempts <= 10:
            raise InvalidSettingError(f"attempts must be between 1 and 10, got {self.attempts}")
        if not 0 <= self.base_delay <= self.max_delay <= 60:
            raise InvalidSettingError("need 0 <= base_delay <= max_delay <= 60 seconds")
        if self.timeout is not None and (
            isinstance(self.timeout, bool)
            or not isinstance(self.timeout, (int, float))
            or not 0 < self.timeout <= MAX_LLM_TIMEOUT
        ):
            raise InvalidSettingError(
                f"timeout must be in (0, {MAX_LLM_TIMEOUT:g}] seconds, got {self.timeout!r}"
            )
        if (
            isinstance(self.max_abandoned, bool)
            or not isinstance(self.max_abandoned, int)
            or not 1 <= self.max_abandoned <= 64
        ):
            raise InvalidSettingError(
                f"max_abandoned must be a whole number between 1 and 64, got {self.max_abandoned!r}"
            )
        if self.on_failure not in FAILURE_MODES:
            raise InvalidSettingError(
                f"on_failure must be one of {', '.join(FAILURE_MODES)}, got {self.on_failure!r}"
            )

    def delay(self, retry: int, rng: random.Random) -> float:
        """The wait before retry number ``retry`` (1, 2, ...), jittered by ``rng``."""
        return min(self.max_delay, self.base_delay * 2 ** (retry - 1)) * (0.5 + rng.random() / 2)

    def delays(self) -> list[float]:
        """The waits before each retry (``attempts - 1`` of them) of a run's first call."""
        rng = random.Random(self.seed)
        return [self.delay(k, rng) for k in range(1, self.attempts)]


#: The policy used when a driver is given none: 3 attempts, 0.5 s then about 1 s of backoff,
#: each call cut off after :data:`DEFAULT_LLM_TIMEOUT` seconds.
DEFAULT_RETRY = RetryPolicy()


def retry_policy(retry: RetryPolicy | None = None, timeout: float | None = None) -> RetryPolicy:
    """The policy of an adapter's ``retry`` and ``llm_timeout`` settings (the CLI's
    ``--llm-timeout``): ``retry`` (default :data:`DEFAULT_RETRY`) with its ``timeout`` replaced
    by ``timeout`` when one is given, checked as :class:`RetryPolicy` checks it.

    >>> retry_policy(timeout=5).timeout, retry_policy().attempts
    (5, 3)
    >>> retry_policy(timeout=0)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: timeout must be in (0, 600] seconds, got 0
    """
    if retry is not None and not isinstance(retry, RetryPolicy):
        raise InvalidSettingError(f"retry must be a RetryPolicy, got {type(retry).__name__}")
    policy = retry or DEFAULT_RETRY
    return policy if timeout is None else replace(policy, timeout=timeout)


class CallGuard:
    """The retry bookkeeping of one driven run (one question), used by the drivers."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy
        self.rng = random.Random(policy.seed)
        self.failed = False  # a call already failed in fallback mode: no more waiting

    def prepare(self, request: LLMRequest) -> LLMRequest:
        if self.policy.timeout is not None and request.timeout is None:
            return replace(request, timeout=self.policy.timeout)
        return request

    def attempts(self) -> int:
        return 1 if self.failed else self.policy.attempts

    def retries(self, request: LLMRequest, error: Exception, attempt: int, tries: int) -> bool:
        """Whether attempt number ``attempt`` of ``tries``, failed with ``error``, is retried.

        ``False`` when the budget is spent (the driver then calls :meth:`give_up`). An error
        that cannot heal (:func:`is_transient`) is raised at once as an
        :class:`~kgcore.exceptions.LLMResponseError` naming the step, the model's error as its
        cause; an error of this project passes as it is (an ``LLMResponseError`` without a
        step is given the step's name).
        """
        if isinstance(error, KGRetrieverError):
            if isinstance(error, LLMResponseError) and error.step is None:
                error.step = request.purpose
            raise error
        if not is_transient(error):
            raise LLMResponseError(
                f"LLM call for step {request.purpose!r} failed (not retried: it cannot heal): "
                f"{describe_error(error)}",
                step=request.purpose,
            ) from error
        return attempt < tries

    def give_up(self, request: LLMRequest, error: BaseException, tries: int) -> LLMReply:
        if self.policy.on_failure == "fallback":
            self.failed = True
            return LLMReply(text="")
        raise LLMResponseError(
            f"LLM call for step {request.purpose!r} failed after {tries} attempt"
            f"{'s' if tries != 1 else ''}: {describe_error(error)}",
            step=request.purpose,
        ) from error

    def delay(self, attempt: int) -> float:
        return self.policy.delay(attempt, self.rng)

    def wait(self, attempt: int) -> None:
        """Wait before retry number ``attempt`` (the synchronous driver)."""
        self.policy.sleep(self.delay(attempt))

    async def await_wait(self, attempt: int) -> None:
        """Wait before retry number ``attempt`` without blocking the event loop, unless the
        policy waits its own way (tests)."""
        if self.policy.sleep is _sleep:
            await asyncio.sleep(self.delay(attempt))
        else:
            self.policy.sleep(self.delay(attempt))
