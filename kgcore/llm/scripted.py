"""A scripted fake chat model for tests and examples of control flow."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kgcore.llm.protocol import LLMReply, LLMRequest


class ScriptedLLM:
    """A fake model replying from a script, for tests and examples of control flow.

    ``script`` is a sequence of replies, or a callable ``(request) -> str``. Every request is
    kept in :attr:`requests`.

    Example
    -------
    >>> llm = ScriptedLLM(["{A}"])
    >>> llm.generate(LLMRequest.from_prompt("pick", purpose="prune")).text
    '{A}'
    """

    def __init__(self, script: Sequence[str] | Callable[[LLMRequest], str]) -> None:
        self._script = script
        self._index = 0
        self.requests: list[LLMRequest] = []

    def generate(self, request: LLMRequest) -> LLMReply:
        self.requests.append(request)
        if callable(self._script):
            text = str(self._script(request))
        else:
            replies = self._script
            if self._index >= len(replies):
                raise AssertionError(
                    f"script exhausted at request {self._index}: {request.purpose}"
                )
            text = replies[self._index]
        self._index += 1
        return LLMReply(
            text=text,
            prompt_tokens=len(request.prompt_text.split()),
            completion_tokens=len(text.split()),
        )
