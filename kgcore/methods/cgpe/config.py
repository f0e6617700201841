"""CGPE's settings, checked when made, with its prompts as overridable templates.

Example
-------
>>> CGPEConfig().max_depth, CGPEConfig(max_branches=2).max_branches
(3, 2)
>>> CGPEConfig(match_threshold=0)
Traceback (most recent call last):
...
kgcore.exceptions.InvalidSettingError: CGPE setting match_threshold=0 is out of range: ...
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgcore.methods.cgpe.prompts import (
    ANSWER_PROMPT,
    CLUE_PROMPT,
    STEP1_PROMPT,
    STEP2_PROMPT,
    STEP3_PROMPT,
    TEMPLATE_FIELDS,
)
from kgcore.methods.kernel import check_template, check_verbalizer
from kgcore.settings import Settings, checked_settings
from kgcore.text.relations import Verbalizer, verbalize_relation
from kgcore.validation import CGPE_LIMITS


@checked_settings("CGPE", limits=CGPE_LIMITS)
@dataclass(frozen=True)
class CGPEConfig(Settings):
    """Every CGPE setting.

    Parameters
    ----------
    max_depth : int
        Hops explored at most.
    max_branches : int
        Paths kept per depth when several candidates match.
    match_threshold : float
        Character-match score (0-100] above which a clue matches a node name.
    max_entities : int
        Candidates shown in step 2 (26 at most); more are sampled down with ``seed``.
    use_topic_entities : bool
        Start from the caller's topic entities when given, instead of clue matching.
    seed : int
        Seeds the step-2 sampling.
    max_tokens : int
        Cap on each matching reply.
    answer_max_tokens : int
        Cap on the answer (and the CoT fallback's) reply.
    clue_prompt, step1_prompt, step2_prompt, step3_prompt, answer_prompt : str
        ``str.format`` templates of the steps (defaults in :mod:`kgcore.methods.cgpe.prompts`);
        a template must keep its fields.
    verbalizer : callable or {"readable", "raw"}
        How relations are written in every prompt
        (:func:`~kgcore.text.relations.verbalize_relation` by default; ``"raw"``: as stored).
    """

    max_depth: int = 3
    max_branches: int = 3
    match_threshold: float = 90.0
    max_entities: int = 12
    use_topic_entities: bool = True
    seed: int = 0
    max_tokens: int = 48
    answer_max_tokens: int = 96
    clue_prompt: str = field(default=CLUE_PROMPT, repr=False)
    step1_prompt: str = field(default=STEP1_PROMPT, repr=False)
    step2_prompt: str = field(default=STEP2_PROMPT, repr=False)
    step3_prompt: str = field(default=STEP3_PROMPT, repr=False)
    answer_prompt: str = field(default=ANSWER_PROMPT, repr=False)
    verbalizer: Verbalizer = field(default=verbalize_relation, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "verbalizer", check_verbalizer("CGPE", self.verbalizer))
        for name, fields in TEMPLATE_FIELDS.items():
            check_template("CGPE", name, getattr(self, name), fields)
