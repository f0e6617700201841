"""What one ToG run carries from phase to phase (:class:`SearchState`), and a candidate
extension of a path (:class:`Candidate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kgcore.llm.protocol import UsageMeter
from kgcore.methods.kernel import RunMeter, StepTrace
from kgcore.types import Triple

__all__ = ["Candidate", "Relation", "SearchState"]

#: A relation around an entity: ``(relation, outgoing)``, ``outgoing`` when the entity is the
#: head of its triples.
Relation = tuple[str, bool]


@dataclass(frozen=True)
class Candidate:
    """A triple that would extend a path to ``entity``, with its path score."""

    triple: Triple
    entity: str
    score: float


@dataclass
class SearchState:
    """What one ToG run carries from phase to phase.

    Attributes
    ----------
    question : str
        The question.
    meter : RunMeter
        The run's accounting (LLM usage, graph time).
    rng : numpy.random.Generator
        The seeded draw of entity sampling, shared by every depth in order.
    trace : StepTrace
        Every LLM step: what was offered, the raw reply, what was read.
    start : list of str
        The linked topic entities (the first frontier).
    topics : list of str
        Names that are no answer: the mentions and the linked topic entities.
    visited : set of str
        Entities already on a path; their triples are not offered again.
    depth : int
        Hops explored so far.
    kept : list of Triple
        Every triple kept on a path, in the order kept.
    explored : list of dict
        What each depth kept and dropped, for pictures.
    stats : dict of str to int
        The pruning, scoring and reasoning calls made.
    """

    question: str
    meter: RunMeter
    rng: np.random.Generator
    trace: StepTrace = field(default_factory=StepTrace)
    start: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    visited: set[str] = field(default_factory=set)
    depth: int = 0
    kept: list[Triple] = field(default_factory=list)
    explored: list[dict[str, object]] = field(default_factory=list)
    stats: dict[str, int] = field(
        default_factory=lambda: {"relation_calls": 0, "entity_calls": 0, "reason_calls": 0}
    )

    @property
    def usage(self) -> UsageMeter:
        """The run's LLM usage."""
        return self.meter.usage
