"""Path planning's one setting (:class:`PathSettings`, nested in FastToG's config) and the
fixed sizes it works with.

The sizes were settings until issue 63; no preset and no report row changed them, so they are
constants now, each with where its value came from (``docs/research/path_planning.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from kgcore.settings import Settings, checked_settings

__all__ = [
    "BEAM",
    "MAX_ANSWERS",
    "MAX_FACTS",
    "MAX_FANOUT",
    "MAX_FRONTIER",
    "NAMED_HOP_COST",
    "NAMED_RELATIONS_MAX",
    "OFFERED",
    "PathSettings",
]

#: Relation paths followed and shown to the model, the closest to the question first (a
#: project value; with 8 offered in ``choose`` mode the model picked the first nearly always,
#: ``docs/research/path_planning.md``).
OFFERED = 3
#: At each hop, only this many paths closest to the question are walked on.
BEAM = 12
#: Nodes of each path walked on per hop while the paths are listed.
MAX_FRONTIER = 50
#: Nodes walked on per hop when a path is followed.
MAX_FANOUT = 300
#: A path gives the answer set when it reaches between 1 and this many nodes.
MAX_ANSWERS = 40
#: Facts of a followed path kept as its evidence.
MAX_FACTS = 9
#: Ranking a question not read as a chain: a path loses this much for each hop past the first
#: whose relation the question does not name (``docs/research/path_planning.md``, "A cost for
#: the hops a question does not name").
NAMED_HOP_COST = 0.2
#: :data:`NAMED_HOP_COST` applies only when the listed paths hold at most this many distinct
#: relation names: among a few relations named as a question says them (MetaQA's) a question's
#: words name the right ones; among many (Freebase's) common words name some relation by chance.
NAMED_RELATIONS_MAX = 12


@checked_settings("path planning", limits={"max_hops": (0, 4)})
@dataclass(frozen=True)
class PathSettings(Settings):
    """How far a method plans relation paths (:mod:`kgcore.paths.reading`).

    Parameters
    ----------
    max_hops : int
        The longest relation path listed; ``0`` turns path planning off (the paper's FastToG,
        the cross-graph report's ``fasttog[paths.max_hops=0]`` rows).

    Example
    -------
    >>> PathSettings().max_hops, PathSettings(max_hops=0).enabled
    (3, False)
    """

    max_hops: int = 3

    @property
    def enabled(self) -> bool:
        """Whether paths are planned at all."""
        return self.max_hops > 0
