"""The paper's fine pruning: the LLM chooses among candidate communities (multiple choice), up
to W at the first choice and one later, or, with ``first_choice`` / ``chain_choice``
``"similarity"``, the candidates closest to the question are taken with no call
(:class:`CommunityChoice`, a part of :class:`~kgcore.methods.fasttog.engine.FastToG`).

Example
-------
>>> from kgcore.community.lcs import Community
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.methods.fasttog import FastToG
>>> films = Community(("Cleopatra", "All About Eve"), (), ())
>>> year = Community(("1963",), (), ())
>>> request = FastToG(InMemoryGraphStore()).choice.request("q", "X.", [films, year], 1)
>>> request.purpose, "{none}" in request.messages[-1].content
('prune', True)
>>> CommunityChoice.read("I pick {2}.", 3, 1), CommunityChoice.read("hmm", 3, 1)
([1], None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.community.lcs import Community
from kgcore.llm.parsing import parse_choices
from kgcore.llm.protocol import LLMReply, LLMRequest, Steps, UsageMeter
from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.prompts import MAX_PARSED_REPLY_CHARS, PRUNE_REMINDERS, prune_request
from kgcore.methods.fasttog.run_state import FastToGRun
from kgcore.methods.fasttog.similarity import SimilarityChoices
from kgcore.methods.fasttog.texts import CommunityTexts
from kgcore.methods.kernel import ask_parsed, report_step, step_record

__all__ = ["CommunityChoice"]


@dataclass(eq=False)
class CommunityChoice:
    """Fine pruning with ``config``'s prompt and sampling, the options written by ``texts``,
    by the LLM or by ``similarity``."""

    config: FastToGConfig
    texts: CommunityTexts
    similarity: SimilarityChoices

    def prune(
        self,
        run: FastToGRun,
        premise: str,
        candidates: Sequence[Community],
        max_choices: int,
        first: bool = False,
    ) -> Steps[list[int]]:
        """Up to ``max_choices`` (W at the first choice, else 1) of the ``candidates``, chosen
        by the LLM (:meth:`choose`) or, with ``first_choice`` (``chain_choice``)
        ``"similarity"`` and more candidates than choices, the closest to the question (no LLM
        call). ``premise`` is what the chain holds so far (the start community's text at the
        first choice). Returns the chosen candidates' indexes; ``[]`` for none.
        """
        similarity = self.similarity
        choice = similarity.first_choice if first else similarity.chain_choice
        if choice == "similarity" and len(candidates) > max_choices:
            return similarity.closest(run, candidates, max_choices)
        usage = run.meter.usage
        return (
            yield from self.choose(
                run.question, premise, candidates, max_choices, usage, run.trace, first
            )
        )

    def choose(
        self,
        question: str,
        premise: str,
        candidates: Sequence[Community],
        max_choices: int,
        usage: UsageMeter,
        trace: list[dict[str, object]],
        first: bool = False,
    ) -> Steps[list[int]]:
        """Fine pruning by the LLM: valid choices kept, one retry, then no choice.

        No call when the choice is forced (as the reference code does): at the start, W or
        fewer candidates are all taken; later, a lone candidate is taken. The first choice
        offers no ``{none}``: a chain must start somewhere.
        """
        offered = [list(c.nodes) for c in candidates]
        if (first and len(candidates) <= max_choices) or (not first and len(candidates) == 1):
            trace.append(report_step({"purpose": "prune", "offered": offered, "forced": True}))
            return list(range(len(candidates)))[:max_choices]
        request = self.request(question, premise, candidates, max_choices, first)

        def record(
            asked: LLMRequest, reply: LLMReply, picked: list[int] | None, retry: bool
        ) -> None:
            extra: dict[str, object] = {"retry": True} if retry else {}
            trace.append(step_record(asked, reply, offered=offered, picked=picked, **extra))

        labels = self.config.option_labels
        picked = yield from ask_parsed(
            request,
            lambda text: self.read(text, len(candidates), max_choices, labels),
            PRUNE_REMINDERS[labels],
            usage,
            usable=lambda value: value is not None and (bool(value) or not first),
            record=record,
        )
        return picked or []

    def request(
        self,
        question: str,
        premise: str,
        candidates: Sequence[Community],
        max_choices: int,
        first: bool = False,
    ) -> LLMRequest:
        """The fine-pruning request of one choice, as the engine sends it: the config's
        template, temperature and token cap; ``first`` offers no ``{none}``."""
        return prune_request(
            question,
            premise,
            self.texts.texts(candidates),
            max_choices,
            temperature=self.config.prune_temperature,
            max_tokens=self.config.prune_max_tokens,
            allow_none=not first,
            template=self.config.prune_prompt,
            labels=self.config.option_labels,
        )

    @staticmethod
    def read(
        text: str, n_options: int, max_choices: int, labels: str = "numbers"
    ) -> list[int] | None:
        """The options (0-based) a pruning reply chooses, ``[]`` for none, ``None`` when the
        reply is unusable; total, and only the first characters of ``text`` are read.
        ``labels`` is how the options were labelled (``option_labels``).

        >>> CommunityChoice.read("{B}", 3, 1, labels="letters")
        [1]
        """
        return parse_choices(str(text)[:MAX_PARSED_REPLY_CHARS], n_options, max_choices, labels)
