"""Leaf facts (this project's, not the paper's): the one-node neighbours of a community shown
as its facts.

Community detection runs without the visited nodes, so a node linked to one community and
to nothing else sampled (a film's year, genre or language) is a community of its own, which
the model rarely chooses. Its linking triple joins the facts of the community beside it: the
start community's (``leaves.kept`` above 0, :mod:`~kgcore.methods.fasttog.start_community`) or
a chain community's as it joins (``leaves.kept`` above 0, :meth:`LeafFacts.look_ahead`). The
node stays a candidate. Why, and what it measurably does:
``docs/research/fasttog_deviations.md`` (``start_leaves``, ``chain_leaves``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.community.lcs import Community, LCSStep
from kgcore.methods.fasttog.community_search import CommunitySearch
from kgcore.methods.fasttog.result import ChainCommunity
from kgcore.methods.fasttog.texts import CommunityTexts
from kgcore.types import Triple


def leaf_links(candidates: Sequence[Community]) -> tuple[Triple, ...]:
    """The linking triples of the one-node ``candidates``.

    >>> from kgcore.types import Triple
    >>> year = Community(("1963",), (), (Triple("Cleopatra", "release year", "1963"),))
    >>> films = Community(("A", "B"), (), (Triple("Cleopatra", "sequel", "A"),))
    >>> leaf_links([year, films])
    (Triple(head='Cleopatra', relation='release year', tail='1963'),)
    """
    return tuple(t for c in candidates if len(c.nodes) == 1 for t in c.links)


@dataclass(eq=False)
class LeafFacts:
    """The FastToG engine's leaf facts along the chains (a part of
    :class:`~kgcore.methods.fasttog.engine.FastToG`): it runs the Local Community Search
    steps of ``search`` and writes community texts with ``texts``."""

    search: CommunitySearch
    texts: CommunityTexts

    def look_ahead(
        self,
        chains: list[list[ChainCommunity]],
        active: Sequence[bool],
        history: set[str],
        depth: int,
    ) -> dict[int, LCSStep]:
        """``leaves.kept`` above 0: the Local Community Search step from each active chain's last
        community, run as the community joins, and its one-node neighbours shown with it.

        The step is the one the chain grows from after reasoning at ``depth`` (same seed), so
        no extra sampling is spent; its one-node candidates lend their linking triples to the
        last community's facts, and reasoning sees them at the depth the community joins
        instead of one choice later. They stay candidates.
        """
        steps: dict[int, LCSStep] = {}
        for index, chain in enumerate(chains):
            if not active[index]:
                continue
            last = chain[-1]
            step = self.search.step(last.nodes, history, depth=depth, chain=index)
            steps[index] = step
            leaves = leaf_links(step.candidates)
            if leaves:
                chain[-1] = dataclasses.replace(
                    last, triples=last.triples + leaves, text=self.texts.text(last, leaves)
                )
        return steps
