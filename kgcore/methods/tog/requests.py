"""The requests ToG sends the model, built from its config: relation pruning, entity scoring and
the reasoning (sufficiency) step. A part of :class:`~kgcore.methods.tog.engine.ToG`.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgcore.llm.protocol import LLMRequest
from kgcore.methods.kernel import options_text, triple_text
from kgcore.methods.tog.config import ToGConfig
from kgcore.methods.tog.prompts import REASON_SYSTEM, SYSTEM
from kgcore.methods.tog.search_state import Relation
from kgcore.text.relations import distinct_phrases
from kgcore.types import Triple

__all__ = ["ToGRequests"]


class ToGRequests:
    """ToG's model requests, each from the question and what the search offers."""

    def __init__(self, config: ToGConfig) -> None:
        self.config = config

    def relation_labels(self, relations: Sequence[Relation]) -> list[str]:
        """The options of a relation choice: each ``(relation, outgoing)`` verbalised, two
        relations that read the same told apart (:func:`distinct_phrases`).

        >>> ToGRequests(ToGConfig()).relation_labels(
        ...     [("film.film.country", True), ("location.location.country", False)])
        ['film country', 'location country (reverse)']
        """
        names = list(dict.fromkeys(r for r, _ in relations))
        texts = dict(zip(names, distinct_phrases(names, self.config.verbalizer), strict=True))
        return [texts[r] if out else f"{texts[r]} (reverse)" for r, out in relations]

    def relations(self, question: str, entity: str, relations: list[str]) -> LLMRequest:
        prompt = self.config.relation_prompt.format(
            question=question,
            entity=entity,
            options=options_text(relations),
            width=self.config.width,
        )
        return LLMRequest.from_prompt(
            prompt, purpose="tog_relations", system=SYSTEM, max_tokens=self.config.max_tokens
        )

    def entities(self, question: str, entity: str, relation: str, names: list[str]) -> LLMRequest:
        prompt = self.config.entity_prompt.format(
            question=question, entity=entity, relation=relation, options=options_text(names)
        )
        return LLMRequest.from_prompt(
            prompt,
            purpose="tog_entities",
            system=SYSTEM,
            max_tokens=self.config.max_tokens + 4 * len(names),
        )

    def reason(self, question: str, triples: list[Triple]) -> LLMRequest:
        lines = "\n".join(triple_text(t, self.config.verbalizer) for t in triples)
        return LLMRequest.from_prompt(
            self.config.reason_prompt.format(triples=lines, question=question),
            purpose="tog_reason",
            system=REASON_SYSTEM,
            max_tokens=self.config.max_tokens,
        )
