"""How FastToG writes a community as text: the textualizer (Triple2Text or Graph2Text) over its
first ``max_option_triples`` triples, links first (:class:`CommunityTexts`), a part of
:class:`~kgcore.methods.fasttog.engine.FastToG` that every other part writes with.

Example
-------
>>> from kgcore.community.lcs import Community
>>> from kgcore.text import Triple2Text
>>> from kgcore.types import Triple
>>> texts = CommunityTexts(Triple2Text(), max_option_triples=8)
>>> texts.text(Community(("Heat",), (Triple("Heat", "directed_by", "Mann"),), ()))
'Heat directed by Mann.'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.community.lcs import Community
from kgcore.methods.fasttog.result import ChainCommunity
from kgcore.text.triple2text import CommunityTextualizer, texts_of
from kgcore.types import Triple

__all__ = ["CommunityTexts"]


@dataclass(eq=False)
class CommunityTexts:
    """Communities as the model reads them: ``textualizer`` over their shown triples."""

    textualizer: CommunityTextualizer
    max_option_triples: int

    def shown(self, community: Community | ChainCommunity) -> tuple[Triple, ...]:
        """The triples of a community that its text shows: its first ``max_option_triples``
        (links first)."""
        return (community.links + community.triples)[: self.max_option_triples]

    def text(self, community: Community | ChainCommunity, leaves: tuple[Triple, ...] = ()) -> str:
        """A community's text: its shown triples, then the linking triples of its one-node
        neighbours (``leaves``)."""
        return self.textualizer(community.nodes, self.shown(community) + leaves)

    def texts(self, communities: Sequence[Community]) -> list[str]:
        """:meth:`text` of each community, in one batch where the textualizer writes batches
        (a Graph2Text model writes the options of a choice together)."""
        return texts_of(self.textualizer, [(c.nodes, self.shown(c)) for c in communities])

    def chain_community(self, community: Community, chain: int, depth: int) -> ChainCommunity:
        """``community`` as it joins chain ``chain`` at ``depth``, with its text."""
        return ChainCommunity(
            chain=chain,
            depth=depth,
            nodes=community.nodes,
            triples=community.triples,
            links=community.links,
            text=self.text(community),
            modularity=community.modularity,
        )
