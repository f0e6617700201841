"""ToG's settings, checked when made, with its prompts as overridable templates.

Example
-------
>>> ToGConfig().width, ToGConfig(max_depth=2).max_depth
(3, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgcore.exceptions import InvalidSettingError
from kgcore.methods.kernel import check_template, check_verbalizer
from kgcore.methods.tog.prompts import (
    ENTITY_PROMPT,
    REASON_PROMPT,
    RELATION_PROMPT,
    TEMPLATE_FIELDS,
)
from kgcore.settings import Settings, checked_settings
from kgcore.text.relations import Verbalizer, verbalize_relation
from kgcore.validation import TOG_LIMITS


@checked_settings("ToG", limits=TOG_LIMITS)
@dataclass(frozen=True)
class ToGConfig(Settings):
    """Every ToG setting, checked when made.

    Parameters
    ----------
    width : int
        ``W``: relations kept per entity and paths kept per depth.
    max_depth : int
        ``D_max``: hops explored before the CoT fallback.
    entity_sample_threshold : int
        A relation with at least this many tail entities is sampled down...
    entity_sample_size : int
        ...to this many, by a seeded draw.
    max_relations : int
        At most this many relations are listed per entity (canonical order; 26 at most are
        shown).
    seed : int
        Seeds the entity sampling; the same seed gives the same run.
    max_tokens : int
        Cap on the tokens of each pruning, scoring and reasoning reply.
    answer_max_tokens : int
        Cap on the CoT fallback's reply.
    relation_prompt, entity_prompt, reason_prompt : str
        ``str.format`` templates of the three steps
        (:data:`~kgcore.methods.tog.prompts.RELATION_PROMPT`,
        :data:`~kgcore.methods.tog.prompts.ENTITY_PROMPT`,
        :data:`~kgcore.methods.tog.prompts.REASON_PROMPT`); a template must keep their fields.
    verbalizer : callable or {"readable", "raw"}
        How relations are written in every prompt
        (:func:`~kgcore.text.relations.verbalize_relation`: ``people.person.place_of_birth``
        as "place of birth"; ``"raw"`` shows them as stored; or a
        :class:`~kgcore.text.relations.RelationVerbalizer` with names of your own).

    Example
    -------
    >>> ToGConfig(width=2).width
    2
    >>> ToGConfig(width=0)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: ToG setting width=0 is out of range: ...
    """

    width: int = 3
    max_depth: int = 3
    entity_sample_threshold: int = 20
    entity_sample_size: int = 5
    max_relations: int = 26
    seed: int = 0
    max_tokens: int = 48
    answer_max_tokens: int = 160
    relation_prompt: str = field(default=RELATION_PROMPT, repr=False)
    entity_prompt: str = field(default=ENTITY_PROMPT, repr=False)
    reason_prompt: str = field(default=REASON_PROMPT, repr=False)
    verbalizer: Verbalizer = field(default=verbalize_relation, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "verbalizer", check_verbalizer("ToG", self.verbalizer))
        if self.entity_sample_size > self.entity_sample_threshold:
            raise InvalidSettingError(
                "ToG needs entity_sample_size <= entity_sample_threshold, got "
                f"{self.entity_sample_size} > {self.entity_sample_threshold}"
            )
        for name, fields in TEMPLATE_FIELDS.items():
            check_template("ToG", name, getattr(self, name), fields)
