"""The paper's reasoning step as FastToG asks it (:class:`Reasoning`, a part of
:class:`~kgcore.methods.fasttog.engine.FastToG`): the request (the config's prompt,
demonstrations and sampling, the start community once, then the chains) and the braced answer
read from a reply, never a name of the demonstrations.

Example
-------
>>> from kgcore.methods.fasttog.config import FastToGConfig
>>> reasoning = Reasoning(FastToGConfig())
>>> reasoning.request("who directed [Heat]", "Heat directed by Mann.", []).purpose
'reason'
>>> reasoning.parse("Steps: ... Answer: {Mann}")
'Mann'
"""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.llm.protocol import LLMRequest
from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.prompts import demo_names, parse_braced_answer, reason_request

__all__ = ["Reasoning"]


class Reasoning:
    """Reasoning requests and replies with ``config``'s prompt, demonstrations and sampling."""

    def __init__(self, config: FastToGConfig) -> None:
        self.config = config
        self.example_names = demo_names(config.reason_demos)  # never taken for answers
        #: The config's prompt, demonstrations and sampling, as every request is sent.
        self.form = dict(
            template=config.reason_prompt,
            demos=config.reason_demos,
            system=config.reason_system,
            temperature=config.reason_temperature,
            max_tokens=config.reason_max_tokens,
        )

    def request(self, question: str, start: str, chains: Sequence[Sequence[str]]) -> LLMRequest:
        """A reasoning request: the start community's text, the chains' texts, the question."""
        return reason_request(question, start, chains, **self.form)  # type: ignore[arg-type]

    def parse(self, text: str, shown: Sequence[str] | None = None) -> str | None:
        """The names in a reply's braces (:func:`~kgcore.methods.fasttog.prompts.
        parse_braced_answer`), ``shown`` the nodes of the facts it read."""
        return parse_braced_answer(text, self.example_names, shown)
