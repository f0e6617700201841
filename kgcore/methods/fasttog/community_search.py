"""The paper's Local Community Search as FastToG runs it at each step (:class:`CommunitySearch`,
a part of :class:`~kgcore.methods.fasttog.engine.FastToG`): sampling around the current
community, community detection, modularity coarse pruning (:mod:`kgcore.community.lcs`),
seeded by the run's seed, the depth and the chain.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.methods.fasttog.config import FastToGConfig
>>> store = InMemoryGraphStore.from_triples([("A", "r", "B"), ("B", "r", "C")])
>>> step = CommunitySearch(store, FastToGConfig()).step(["A"], {"A"}, depth=0, chain=0)
>>> [c.nodes for c in step.candidates]
[('B', 'C')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.community.lcs import LCSStep, local_community_search
from kgcore.graph.store import GraphStore
from kgcore.methods.fasttog.config import FastToGConfig

__all__ = ["CommunitySearch"]


@dataclass(eq=False)
class CommunitySearch:
    """One Local Community Search step on ``store`` with ``config``'s settings."""

    store: GraphStore
    config: FastToGConfig

    def step(self, current: Sequence[str], history: set[str], depth: int, chain: int) -> LCSStep:
        """One step around ``current``, without the ``history`` nodes.

        The step from several topic entities (depth 0) ranks first what joins them
        (``shared_first``, see :func:`~kgcore.community.lcs.coarse_prune`), unless
        ``shared_topics`` is off; ``leaves.kept`` slots go to one-node communities.
        """
        seed = self.config.seed * 1_000_003 + depth * 1_009 + chain
        shared_first = self.config.shared_topics and depth == 0 and len(current) > 1
        return local_community_search(
            self.store,
            current,
            self.config.lcs,
            exclude=history,
            seed=seed,
            shared_first=shared_first,
            leaf_slots=self.config.leaves.kept,
        )
