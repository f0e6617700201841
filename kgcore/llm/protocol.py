"""The small LLM protocol every method is written against.

Methods are written once as *step generators*: they ``yield`` an :class:`LLMRequest` and receive
an :class:`LLMReply`. :func:`run_steps` drives one with a synchronous model and
:func:`arun_steps` with an asynchronous one, so each method has a sync and an async path
without being written twice. Adapters (LangChain, LlamaIndex) implement :class:`ChatLLM`.

The drivers make every call safe for the method behind them:

* a reply's text is cut to :func:`reply_char_cap` characters before the method reads it, so
  no step's cost grows with the size of a reply;
* transient errors (connection, timeout, rate limit, HTTP 408/429/5xx) are retried with
  exponential backoff and seeded jitter, as a :class:`RetryPolicy` says; errors that cannot
  heal (authentication, bad request) are not. When the budget is spent the driver raises
  :class:`~kgcore.exceptions.LLMResponseError` naming the step and the cause, or, with
  ``on_failure="fallback"``, answers the step with an empty reply so the method takes its
  documented path for an unusable reply (its fallback, else ``Unknown``).

Example
-------
>>> def ask(question):
...     reply = yield LLMRequest.from_prompt(question, purpose="io")
...     return reply.text.upper()
>>> class Echo:
...     def generate(self, request):
...         return LLMReply(text=request.messages[-1].content)
>>> run_steps(ask("hello"), Echo())
'HELLO'
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Generic, Protocol, TypeVar, runtime_checkable

from kgcore.exceptions import InvalidSettingError, KGRetrieverError, LLMResponseError
from kgcore.validation import MIN_REPLY_CAP_CHARS

T = TypeVar("T")


@dataclass(frozen=True)
class ChatMessage:
    """One chat message; ``role`` is ``"system"``, ``"user"`` or ``"assistant"``."""

    role: str
    content: str


@dataclass(frozen=True)
class LLMRequest:
    """What a method asks of the model.

    ``purpose`` names the step (``"extract_entities"``, ``"prune"``, ``"reason"``, ...) so
    adapters can label traces and tests can script replies by step. ``timeout`` is the
    per-call limit in seconds set by the driver's :class:`RetryPolicy`; an adapter whose model
    supports a timeout should pass it on. ``seed``, when set, asks
    for that sampling seed (CoT-SC varies it per sample); adapters pass it where the model
    has a seed field. ``fixed_prefix`` is the number of leading messages that many requests
    share word for word (a method's demonstrations); a local model may keep their evaluated
    state and start every such request from it (``ChatLlamaCppLocal.prefix_cache``).
    ``cache_scope`` names the run a request belongs to (every method's run stamps its own, see
    :func:`kgcore.methods.base.in_cache_scope`): a local model may start a request from the
    evaluated state of an earlier prompt of the same run that shares its opening, and starts a
    new run from an empty context, so a run's replies depend only on its own calls
    (``ChatLlamaCppLocal.run_cache``).
    """

    messages: tuple[ChatMessage, ...]
    purpose: str
    temperature: float = 0.0
    max_tokens: int = 256
    timeout: float | None = None
    seed: int | None = None
    fixed_prefix: int = 0
    cache_scope: str | None = None

    @classmethod
    def from_prompt(
        cls,
        prompt: str,
        purpose: str,
        system: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 256,
    ) -> LLMRequest:
        messages = (ChatMessage("system", system),) if system else ()
        return cls(messages + (ChatMessage("user", prompt),), purpose, temperature, max_tokens)

    def with_reminder(self, previous_reply: str, reminder: str) -> LLMRequest:
        """The same request continued by the model's unusable reply and a format reminder."""
        extra = (ChatMessage("assistant", previous_reply), ChatMessage("user", reminder))
        return replace(self, messages=self.messages + extra)

    @property
    def prompt_text(self) -> str:
        return "\n\n".join(m.content for m in self.messages)


@dataclass(frozen=True)
class LLMReply:
    """The model's answer, with token counts when the model reports them."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0


@runtime_checkable
class ChatLLM(Protocol):
    """A synchronous chat model."""

    def generate(self, request: LLMRequest) -> LLMReply: ...


@runtime_checkable
class AsyncChatLLM(Protocol):
    """An asynchronous chat model."""

    async def agenerate(self, request: LLMRequest) -> LLMReply: ...


Steps = Generator[LLMRequest, LLMReply, T]

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
        Seconds one call may take (at most 600). Asynchronous models are cancelled after it;
        synchronous ones receive it as :attr:`LLMRequest.timeout` and honour it if they can.
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
    timeout: float | None = None
    on_failure: str = "raise"
    seed: int = 0
    sleep: Callable[[float], None] = field(default=_sleep, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not 1 <= self.attempts <= 10:
            raise InvalidSettingError(f"attempts must be between 1 and 10, got {self.attempts}")
        if not 0 <= self.base_delay <= self.max_delay <= 60:
            raise InvalidSettingError("need 0 <= base_delay <= max_delay <= 60 seconds")
        if self.timeout is not None and not 0 < self.timeout <= 600:
            raise InvalidSettingError(f"timeout must be in (0, 600] seconds, got {self.timeout}")
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


#: The policy used when a driver is given none: 3 attempts, 0.5 s then about 1 s of backoff.
DEFAULT_RETRY = RetryPolicy()


def reply_char_cap(request: LLMRequest) -> int:
    """How many characters of a reply to ``request`` are read.

    Eight characters a requested token, and never fewer than
    :data:`~kgcore.validation.MIN_REPLY_CAP_CHARS`: a reply within its token budget is never cut.
    """
    return max(MIN_REPLY_CAP_CHARS, 8 * max(0, int(request.max_tokens)))


def _capped(reply: object, request: LLMRequest, started: float) -> LLMReply:
    """The reply with its text cut to :func:`reply_char_cap` and its time measured."""
    if not isinstance(reply, LLMReply):
        reply = LLMReply(text="")
    text = reply.text if isinstance(reply.text, str) else ""
    cap = reply_char_cap(request)
    if len(text) > cap or text is not reply.text:
        reply = replace(reply, text=text[:cap])
    if reply.seconds:
        return reply
    return replace(reply, seconds=time.perf_counter() - started)


class _CallGuard:
    """The retry bookkeeping of one driven run (one question)."""

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

    def give_up(self, request: LLMRequest, error: BaseException, tries: int) -> LLMReply:
        if self.policy.on_failure == "fallback":
            self.failed = True
            return LLMReply(text="")
        raise LLMResponseError(
            f"LLM call for step {request.purpose!r} failed after {tries} attempt"
            f"{'s' if tries != 1 else ''}: {type(error).__name__}: {error}",
            step=request.purpose,
        ) from error

    def delay(self, attempt: int) -> float:
        return self.policy.delay(attempt, self.rng)


def _call(llm: ChatLLM, request: LLMRequest, guard: _CallGuard) -> LLMReply:
    tries = guard.attempts()
    for attempt in range(1, tries + 1):
        started = time.perf_counter()
        try:
            return _capped(llm.generate(request), request, started)
        except Exception as err:  # noqa: BLE001 - classified just below
            if not is_transient(err):
                raise
            if attempt == tries:
                return guard.give_up(request, err, tries)
            guard.policy.sleep(guard.delay(attempt))
    raise AssertionError("unreachable")  # pragma: no cover


async def _acall(llm: AsyncChatLLM | ChatLLM, request: LLMRequest, guard: _CallGuard) -> LLMReply:
    tries = guard.attempts()
    for attempt in range(1, tries + 1):
        started = time.perf_counter()
        try:
            if isinstance(llm, AsyncChatLLM):
                reply = await asyncio.wait_for(llm.agenerate(request), request.timeout)
            else:
                # A thread cannot be cancelled: a sync model only gets the timeout as a hint.
                reply = await asyncio.to_thread(llm.generate, request)
            return _capped(reply, request, started)
        except Exception as err:  # noqa: BLE001 - classified just below
            if not is_transient(err):
                raise
            if attempt == tries:
                return guard.give_up(request, err, tries)
            if guard.policy.sleep is _sleep:
                await asyncio.sleep(guard.delay(attempt))
            else:
                guard.policy.sleep(guard.delay(attempt))
    raise AssertionError("unreachable")  # pragma: no cover


def run_steps(steps: Steps[T], llm: ChatLLM, retry: RetryPolicy | None = None) -> T:
    """Drive a step generator with a synchronous model and return its result.

    Replies are capped and transient errors retried as ``retry`` says (default
    :data:`DEFAULT_RETRY`); see the module docstring.
    """
    guard = _CallGuard(retry or DEFAULT_RETRY)
    try:
        request = next(steps)
        while True:
            request = guard.prepare(request)
            request = steps.send(_call(llm, request, guard))
    except StopIteration as stop:
        return stop.value


@dataclass(frozen=True)
class _Finished(Generic[T]):
    """The result of a step generator that has returned."""

    value: T


def _resume(steps: Steps[T], reply: LLMReply | None) -> LLMRequest | _Finished[T]:
    """Run ``steps`` up to its next request, or to its end (``StopIteration`` cannot cross a
    thread's future, so the end is returned as a :class:`_Finished`)."""
    try:
        return next(steps) if reply is None else steps.send(reply)
    except StopIteration as stop:
        return _Finished(stop.value)


async def arun_steps(
    steps: Steps[T], llm: AsyncChatLLM | ChatLLM, retry: RetryPolicy | None = None
) -> T:
    """Drive a step generator with an asynchronous model (or a sync one, in a thread).

    The generator's own work between model calls (graph reads, community search, embedding,
    PCST) runs in a worker thread, so it never blocks the event loop: concurrent runs overlap
    their graph waits as they overlap their model calls.

    Example
    -------
    >>> def ask(question):
    ...     reply = yield LLMRequest.from_prompt(question, purpose="io")
    ...     return reply.text.upper()
    >>> class Echo:
    ...     async def agenerate(self, request):
    ...         return LLMReply(text=request.messages[-1].content)
    >>> asyncio.run(arun_steps(ask("hello"), Echo()))
    'HELLO'
    """
    guard = _CallGuard(retry or DEFAULT_RETRY)
    reply: LLMReply | None = None
    while True:
        step = await asyncio.to_thread(_resume, steps, reply)
        if isinstance(step, _Finished):
            return step.value
        reply = await _acall(llm, guard.prepare(step), guard)


@dataclass
class UsageMeter:
    """Counts LLM calls, tokens and seconds as replies come in.

    ``unparsed`` counts replies a method could not use (it asks again or gives up).
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_reported: bool = False
    llm_seconds: float = 0.0
    unparsed: int = 0

    def add(self, reply: LLMReply) -> None:
        self.calls += 1
        self.llm_seconds += reply.seconds
        if reply.prompt_tokens is not None:
            self.tokens_reported = True
            self.prompt_tokens += reply.prompt_tokens
        if reply.completion_tokens is not None:
            self.tokens_reported = True
            self.completion_tokens += reply.completion_tokens
