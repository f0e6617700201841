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
  heal (authentication, bad request, any other error a model raises) are not, and end at once
  as an :class:`~kgcore.exceptions.LLMResponseError` naming the step;
  when the budget of a transient error is spent the driver raises
  :class:`~kgcore.exceptions.LLMResponseError` naming the step and the cause, or, with
  ``on_failure="fallback"``, answers the step with an empty reply so the method takes its
  documented path for an unusable reply (its fallback, else ``Unknown``);
* every call has a deadline (:data:`DEFAULT_LLM_TIMEOUT` unless the policy says otherwise)
  and is cut off after it, a synchronous model's too (its call runs in a reusable worker
  thread the driver stops waiting for, and the request's ``cancel`` event asks the model to
  stop); the timeout is a transient error, and a model that ignores ``cancel`` and never
  returns keeps at most ``RetryPolicy.max_abandoned`` workers
  (:mod:`~kgcore.llm.protocol.workers`, :func:`worker_stats`).

The package has one module per job, and every name is imported from here:

- :mod:`~kgcore.llm.protocol.types`: messages, requests, replies, the model protocols,
  :data:`Steps` and the :class:`UsageMeter`;
- :mod:`~kgcore.llm.protocol.retry`: which errors are transient, :class:`RetryPolicy`;
- :mod:`~kgcore.llm.protocol.driver`: :func:`run_steps`, :func:`arun_steps` and the reply cap;
- :mod:`~kgcore.llm.protocol.workers`: the worker threads of calls with a deadline.

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

from kgcore.llm.protocol.driver import arun_steps, reply_char_cap, run_steps
from kgcore.llm.protocol.retry import (
    DEFAULT_LLM_TIMEOUT,
    DEFAULT_RETRY,
    FAILURE_MODES,
    TRANSIENT_STATUS,
    RetryPolicy,
    describe_error,
    is_transient,
    retry_policy,
)
from kgcore.llm.protocol.types import (
    AsyncChatLLM,
    ChatLLM,
    ChatMessage,
    LLMReply,
    LLMRequest,
    Steps,
    UsageMeter,
)
from kgcore.llm.protocol.workers import (
    DEFAULT_MAX_ABANDONED,
    ModelStuckError,
    WorkerStats,
    worker_stats,
)

__all__ = [
    "DEFAULT_LLM_TIMEOUT",
    "DEFAULT_MAX_ABANDONED",
    "DEFAULT_RETRY",
    "FAILURE_MODES",
    "TRANSIENT_STATUS",
    "AsyncChatLLM",
    "ChatLLM",
    "ChatMessage",
    "LLMReply",
    "LLMRequest",
    "ModelStuckError",
    "RetryPolicy",
    "Steps",
    "UsageMeter",
    "WorkerStats",
    "arun_steps",
    "describe_error",
    "is_transient",
    "reply_char_cap",
    "retry_policy",
    "run_steps",
    "worker_stats",
]
