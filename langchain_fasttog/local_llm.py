"""A LangChain chat model over a local GGUF file, run by llama-cpp-python.

Why not ``langchain_community.chat_models.ChatLlamaCpp``: it reports no token usage and would
pull the whole community package for one class. This one is small, reports
``usage_metadata``, takes the chat template explicitly (Qwen needs ChatML), and keeps one
``llama_cpp.Llama`` per model copy so llama.cpp reuses the evaluated prefix of consecutive
prompts (its KV cache keeps the longest common prefix). With ``prompt_cache_mb`` it also keeps
the KV states of earlier prompts in RAM (llama-cpp-python's ``LlamaRAMCache``), so a prompt
reuses the longest prefix it shares with any recent prompt, not only the last one: FastToG
alternates pruning and reasoning prompts, and each reasoning prompt extends the previous one.
With ``prefix_cache`` (on by default) a request that declares a fixed prefix (the kwarg
``fixed_prefix_messages``, which :class:`~langchain_fasttog.llm.LangChainLLM` passes from
``LLMRequest.fixed_prefix``: FastToG's reasoning demonstrations) starts from the saved KV state
of that prefix, evaluated once from an empty context; its reply then does not depend on
earlier calls, unlike the RAM cache's. With ``run_cache`` (on by default) the requests of one
method run (the kwarg ``cache_scope``, which every run stamps on its requests, see
:func:`kgcore.methods.base.in_cache_scope`) keep their KV states: a request starts from the
saved state of the run's earlier prompt that shares the longest opening with it (FastToG's
reasoning prompt at depth 2 opens like the one at depth 1, and a chain's pruning prompt like
its previous one), and a new run starts from an empty context, so a run's replies depend on
its own calls only. :meth:`ChatLlamaCppLocal.prompt_eval_stats` reads llama.cpp's own
counters of prompt tokens evaluated and the time spent on them.

Example
-------
>>> from kglocal.locations import smollm_gguf_path
>>> chat = ChatLlamaCppLocal(model_path=str(smollm_gguf_path()))  # doctest: +SKIP
>>> chat.invoke("Say hi").content  # doctest: +SKIP
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from kgcore.exceptions import MissingDependencyError
from kgcore.llm.cancel import CancelStop
from kgcore.llm.repetition import RepetitionStop
from kglocal.locations import llama_threads

_ROLE = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}


@dataclass(frozen=True)
class _KVState:
    """A llama.cpp context's evaluated tokens and its serialised state (KV cache included).

    Written here rather than llama-cpp-python's ``Llama.save_state``: that one also copies the
    (``n_batch`` x vocabulary) score array, about 300 MB for Qwen's 151,936 tokens, which is
    used only for log-probabilities (``logits_all``) and never filled here.
    """

    tokens: tuple[int, ...]
    data: bytes

    @classmethod
    def save(cls, llama: Any) -> _KVState:
        import llama_cpp

        size = int(llama_cpp.llama_state_get_size(llama._ctx.ctx))
        buffer = (ctypes.c_uint8 * size)()
        written = int(llama_cpp.llama_state_get_data(llama._ctx.ctx, buffer, size))
        if written > size:
            raise RuntimeError("llama.cpp wrote more state than it announced")
        tokens = tuple(int(t) for t in llama.input_ids[: llama.n_tokens])
        return cls(tokens=tokens, data=bytes(memoryview(buffer)[:written]))

    def load(self, llama: Any) -> None:
        import llama_cpp

        size = len(self.data)
        buffer = (ctypes.c_uint8 * size).from_buffer_copy(self.data)
        if llama_cpp.llama_state_set_data(llama._ctx.ctx, buffer, size) != size:
            raise RuntimeError("llama.cpp refused a saved state")
        llama.input_ids[: len(self.tokens)] = self.tokens
        llama.n_tokens = len(self.tokens)
        llama._requires_eval = True  # logits come from the next decode, not from the state


class ChatLlamaCppLocal(BaseChatModel):
    """Chat completion on a local GGUF model with llama-cpp-python.

    ``n_threads``: generation threads, by default one per physical core
    (:func:`kglocal.locations.llama_threads`; prompt evaluation uses every CPU);
    ``prefix_cache`` / ``prefix_cache_entries``: saved states of fixed request prefixes;
    ``run_cache`` / ``run_cache_entries``: saved states of the current run's calls (the
    module docstring says more); ``prompt_cache_mb``: llama-cpp-python's RAM cache, off;
    ``stop_loops``: end a reply once it repeats one span over and over
    (:class:`kgcore.llm.repetition.RepetitionStop`; its ``finish_reason`` is then
    ``"repetition"``), on by default.

    A call ends early, with ``finish_reason`` ``"cancelled"``, when the kwarg ``cancel_event``
    (a ``threading.Event``, which :class:`~langchain_fasttog.llm.LangChainLLM` passes from
    :attr:`kgcore.llm.protocol.LLMRequest.cancel`) is set, or once ``call_timeout`` seconds
    (a kwarg too) have passed: the driver sets the event when a call's deadline passes, so the
    generation stops at its next token and the worker thread is free
    (:class:`kgcore.llm.cancel.CancelStop`). A call whose event is already set when it gets
    the model (it waited for an earlier call) returns an empty reply at once.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_path: str
    chat_format: str | None = "chatml"
    n_ctx: int = 4096
    n_threads: int | None = None
    n_batch: int = 512
    temperature: float = 0.1
    max_tokens: int = 256
    seed: int = 0
    top_p: float = 0.95
    stop: list[str] | None = None
    verbose: bool = False
    prompt_cache_mb: int = 0
    prefix_cache: bool = True
    prefix_cache_entries: int = 4
    run_cache: bool = True
    run_cache_entries: int = 8
    stop_loops: bool = True
    _state: dict[str, Any] = PrivateAttr(default_factory=dict)
    model_kwargs: dict[str, Any] = Field(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "chat_format": self.chat_format, "n_ctx": self.n_ctx}

    def _client(self) -> Any:
        # The Llama object lives in a dict shared by model_copy() copies (a shallow copy of the
        # private state), so copies made for other temperatures reuse one loaded model.
        if "llama" not in self._state:
            try:
                from llama_cpp import Llama
            except ImportError as err:
                raise MissingDependencyError("llama-cpp-python", "local") from err
            self._state["llama"] = Llama(
                model_path=self.model_path,
                n_ctx=self.n_ctx,
                n_threads=self.n_threads or llama_threads(),
                n_batch=self.n_batch,
                chat_format=self.chat_format,
                seed=self.seed,
                verbose=self.verbose,
                **self.model_kwargs,
            )
            if self.prompt_cache_mb > 0:
                from llama_cpp import LlamaRAMCache

                self._state["llama"].set_cache(
                    LlamaRAMCache(capacity_bytes=self.prompt_cache_mb * 2**20)
                )
            self._state["lock"] = threading.Lock()
        return self._state["llama"]

    def prompt_eval_stats(self) -> dict[str, float]:
        """llama.cpp's counters since the model was loaded: prompt tokens evaluated (those not
        reused from the KV cache) and the seconds spent evaluating them.

        Empty before the first call, or when this llama-cpp-python has no perf counters.
        """
        llama = self._state.get("llama")
        if llama is None:
            return {}
        try:
            import llama_cpp

            data = llama_cpp.llama_perf_context(llama._ctx.ctx)
        except (AttributeError, ImportError):  # an older llama-cpp-python
            return {}
        return {
            "prompt_tokens_evaluated": float(data.n_p_eval),
            "prompt_eval_seconds": float(data.t_p_eval_ms) / 1000.0,
            "generated_tokens": float(data.n_eval),
            "generation_seconds": float(data.t_eval_ms) / 1000.0,
        }

    def _prompt_tokens(self, llama: Any, payload: list[dict[str, str]]) -> list[int]:
        """The tokens ``create_chat_completion`` sends for ``payload``; none for a format
        other than ChatML (the formatter is llama-cpp-python's own)."""
        if self.chat_format != "chatml":
            return []
        from llama_cpp.llama_chat_format import format_chatml

        prompt = format_chatml(messages=payload).prompt
        return list(llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True))

    def _prefix_tokens(
        self,
        llama: Any,
        payload: list[dict[str, str]],
        fixed: int,
        prompt_tokens: list[int] | None = None,
    ) -> list[int]:
        """The tokens of the first ``fixed`` messages and the next message's header, when they
        open the prompt's tokens (``prompt_tokens``, computed when not given); else none. Only
        for the ChatML format: the formatter is llama-cpp-python's own, so the tokens are those
        ``create_chat_completion`` sends."""
        if self.chat_format != "chatml" or not 0 < fixed < len(payload):
            return []
        from llama_cpp.llama_chat_format import format_chatml

        marker = "\x00"
        probe = format_chatml(messages=[*payload[:fixed], {"role": "user", "content": marker}])
        head = probe.prompt[: probe.prompt.index(marker)]
        if not format_chatml(messages=payload).prompt.startswith(head):
            return []
        tokens = list(llama.tokenize(head.encode("utf-8"), add_bos=True, special=True))
        if prompt_tokens is None:
            prompt_tokens = self._prompt_tokens(llama, payload)
        return tokens if prompt_tokens[: len(tokens)] == tokens else []

    def _prefix_state(
        self,
        llama: Any,
        payload: list[dict[str, str]],
        fixed: int,
        prompt_tokens: list[int] | None = None,
    ) -> Any:
        """The saved KV state of the request's fixed prefix (evaluated from an empty context
        the first time), or ``None`` when the request has no usable prefix.

        Written here because llama-cpp-python's caches (``LlamaRAMCache``, the reuse of the
        last prompt's prefix) start from whatever state earlier calls left, so their numerics,
        and at times the reply, depend on call history.
        """
        tokens = self._prefix_tokens(llama, payload, fixed, prompt_tokens)
        if not tokens:
            return None
        states: OrderedDict[tuple[int, ...], _KVState] = self._state.setdefault(
            "prefix_states", OrderedDict()
        )
        key = tuple(tokens)
        state = states.get(key)
        if state is None:
            llama.reset()
            llama.eval(tokens)
            state = _KVState.save(llama)
            states[key] = state
            while len(states) > max(1, self.prefix_cache_entries):
                states.popitem(last=False)
        states.move_to_end(key)
        return state

    def _start_from_prefix(self, llama: Any, payload: list[dict[str, str]], fixed: int) -> int:
        """Load the saved KV state of the request's fixed prefix (:meth:`_prefix_state`):
        llama.cpp then evaluates only the rest of the prompt, always from the same state, so
        the reply does not depend on earlier calls. Returns the number of prefix tokens (0: no
        usable prefix, the context is left as it is)."""
        state = self._prefix_state(llama, payload, fixed)
        if state is None:
            return 0
        state.load(llama)  # also after the first evaluation: one path every time
        return len(state.tokens)

    def _start_in_run(
        self, llama: Any, payload: list[dict[str, str]], fixed: int, scope: str
    ) -> int:
        """``run_cache``: start from the saved state (of this run's earlier calls, or the fixed
        prefix's) that shares the longest opening with the prompt; a new ``scope`` first drops
        the earlier run's states and empties the context. Returns the tokens reused.

        Written here rather than with llama-cpp-python's ``LlamaRAMCache``: that cache is
        shared by every call and copies a ~300 MB score array per state (see :class:`_KVState`).
        """
        if self._state.get("run_scope") != scope:
            self._state["run_scope"] = scope
            self._state["run_states"] = []
            llama.reset()  # nothing carried over from an earlier run
        tokens = self._prompt_tokens(llama, payload)
        candidates: list[_KVState] = list(self._state["run_states"])
        if fixed > 0 and self.prefix_cache:
            prefix = self._prefix_state(llama, payload, fixed, tokens)  # tokenized once
            if prefix is not None:
                candidates.append(prefix)
        best, reused = None, 0
        for state in candidates:  # the most recent first among equals: a stable choice
            shared = int(llama.longest_token_prefix(state.tokens, tokens))
            if shared > reused:
                best, reused = state, shared
        if best is None:
            llama.reset()
            return 0
        best.load(llama)
        return reused

    def _keep_run_state(self, llama: Any) -> None:
        """Save the context after a call of the current run (the oldest beyond
        ``run_cache_entries`` dropped)."""
        states: list[_KVState] = self._state["run_states"]
        states.insert(0, _KVState.save(llama))
        del states[max(1, self.run_cache_entries) :]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        llama = self._client()
        payload = [{"role": _ROLE.get(m.type, "user"), "content": str(m.content)} for m in messages]
        fixed = int(kwargs.pop("fixed_prefix_messages", 0) or 0)
        scope = kwargs.pop("cache_scope", None)
        cancel = kwargs.pop("cancel_event", None)
        timeout = kwargs.pop("call_timeout", None)
        deadline = time.monotonic() + float(timeout) if timeout else None
        in_run = scope is not None and self.run_cache and self.chat_format == "chatml"
        with self._state["lock"]:  # one llama.cpp context: calls must not interleave
            ends = CancelStop(llama.token_eos(), cancel, deadline)
            if ends.due():  # the caller gave up while this call waited for the model
                return _empty_result(self.model_path)
            if in_run:
                self._start_in_run(llama, payload, fixed, str(scope))
            elif fixed > 0 and self.prefix_cache:
                self._start_from_prefix(llama, payload, fixed)
            loops = RepetitionStop(llama.token_eos()) if self.stop_loops else None
            watching = cancel is not None or deadline is not None
            processors = [p for p in (loops, ends if watching else None) if p is not None]
            response = llama.create_chat_completion(
                messages=payload,
                temperature=kwargs.get("temperature", self.temperature),
                max_tokens=kwargs.get("max_tokens", self.max_tokens),
                top_p=self.top_p,
                stop=stop or self.stop,
                seed=kwargs.get("seed", self.seed),
                logits_processor=processors or None,
            )
            if in_run:
                self._keep_run_state(llama)
        text = response["choices"][0]["message"].get("content") or ""
        usage = response.get("usage") or {}
        message = AIMessage(
            content=text,
            usage_metadata={
                "input_tokens": int(usage.get("prompt_tokens", 0)),
                "output_tokens": int(usage.get("completion_tokens", 0)),
                "total_tokens": int(usage.get("total_tokens", 0)),
            },
            response_metadata={
                "model_path": self.model_path,
                "finish_reason": "cancelled"
                if ends.stopped
                else "repetition"
                if loops is not None and loops.stopped
                else response["choices"][0].get("finish_reason"),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def _empty_result(model_path: str) -> ChatResult:
    """The reply of a call cancelled before it started: no text, no tokens."""
    message = AIMessage(
        content="",
        usage_metadata={"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
        response_metadata={"model_path": model_path, "finish_reason": "cancelled"},
    )
    return ChatResult(generations=[ChatGeneration(message=message)])
