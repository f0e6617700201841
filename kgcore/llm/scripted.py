"""A scripted fake chat model for tests and examples of control flow."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

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

    @classmethod
    def by_purpose(
        cls, replies: Mapping[str, Sequence[str]], repeat_last: bool = False
    ) -> ScriptedLLM:
        """A script answering each step (``request.purpose``) from its own queue of replies.

        A step with no queue, or whose queue runs out, fails the test with an
        ``AssertionError``; with ``repeat_last=True`` a queue's last reply answers every later
        request of that step.

        Example
        -------
        >>> llm = ScriptedLLM.by_purpose({"prune": ["{1}"], "reason": ["{Unknown}", "{x}"]})
        >>> [llm.generate(LLMRequest.from_prompt("q", purpose=p)).text
        ...  for p in ("reason", "prune", "reason")]
        ['{Unknown}', '{1}', '{x}']
        """
        queues = {purpose: list(texts) for purpose, texts in replies.items()}

        def reply(request: LLMRequest) -> str:
            queue = queues.get(request.purpose)
            if not queue:
                raise AssertionError(f"no scripted reply left for step {request.purpose!r}")
            return queue[0] if repeat_last and len(queue) == 1 else queue.pop(0)

        return cls(reply)

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
