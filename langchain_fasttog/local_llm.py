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
earlier calls, unlike the RAM cache's. :meth:`ChatLlamaCppLocal.prompt_eval_stats` reads
llama.cpp's own counters of prompt tokens evaluated and the time spent on them.

Example
-------
>>> from kgcore.local_models import smollm_gguf_path
>>> chat = ChatLlamaCppLocal(model_path=str(smollm_gguf_path()))  # doctest: +SKIP
>>> chat.invoke("Say hi").content  # doctest: +SKIP
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from kgcore.exceptions import MissingDependencyError

_ROLE = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}


class ChatLlamaCppLocal(BaseChatModel):
    """Chat completion on a local GGUF model with llama-cpp-python."""

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
                n_threads=self.n_threads,
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

    def _prefix_tokens(self, llama: Any, payload: list[dict[str, str]], fixed: int) -> list[int]:
        """The tokens of the first ``fixed`` messages and the next message's header, when they
        open the prompt's tokens; else none. Only for the ChatML format: the formatter is
        llama-cpp-python's own, so the tokens are those ``create_chat_completion`` sends."""
        if self.chat_format != "chatml" or not 0 < fixed < len(payload):
            return []
        from llama_cpp.llama_chat_format import format_chatml

        marker = "\x00"
        probe = format_chatml(messages=[*payload[:fixed], {"role": "user", "content": marker}])
        head = probe.prompt[: probe.prompt.index(marker)]
        full = format_chatml(messages=payload).prompt
        if not full.startswith(head):
            return []
        tokens = list(llama.tokenize(head.encode("utf-8"), add_bos=True, special=True))
        full_tokens = list(llama.tokenize(full.encode("utf-8"), add_bos=True, special=True))
        return tokens if full_tokens[: len(tokens)] == tokens else []

    def _start_from_prefix(self, llama: Any, payload: list[dict[str, str]], fixed: int) -> int:
        """Load the saved KV state of the request's fixed prefix (evaluated from an empty
        context the first time): llama.cpp then evaluates only the rest of the prompt, always
        from the same state, so the reply does not depend on earlier calls. Returns the number
        of prefix tokens (0: no usable prefix, the context is left as it is).

        Written here because llama-cpp-python's caches (``LlamaRAMCache``, the reuse of the
        last prompt's prefix) start from whatever state earlier calls left, so their numerics,
        and at times the reply, depend on call history.
        """
        tokens = self._prefix_tokens(llama, payload, fixed)
        if not tokens:
            return 0
        states: OrderedDict[tuple[int, ...], Any] = self._state.setdefault(
            "prefix_states", OrderedDict()
        )
        key = tuple(tokens)
        state = states.get(key)
        if state is None:
            llama.reset()
            llama.eval(tokens)
            state = llama.save_state()
            states[key] = state
            while len(states) > max(1, self.prefix_cache_entries):
                states.popitem(last=False)
        states.move_to_end(key)
        llama.load_state(state)  # also after the first evaluation: one path every time
        return len(tokens)

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
        with self._state["lock"]:  # one llama.cpp context: calls must not interleave
            if fixed > 0 and self.prefix_cache:
                self._start_from_prefix(llama, payload, fixed)
            response = llama.create_chat_completion(
                messages=payload,
                temperature=kwargs.get("temperature", self.temperature),
                max_tokens=kwargs.get("max_tokens", self.max_tokens),
                top_p=self.top_p,
                stop=stop or self.stop,
                seed=kwargs.get("seed", self.seed),
            )
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
                "finish_reason": response["choices"][0].get("finish_reason"),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
