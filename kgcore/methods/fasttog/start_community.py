"""The start community (this project's, not the paper's): the facts of the topic entities that
the first choice shows as its premise and every reasoning step shows first, and which of the
first candidates may start a chain.

The start community holds the topic's triples, the linking triples of its one-node neighbours
(``leaves.kept`` above 0, :mod:`~kgcore.methods.fasttog.leaf_facts`), and opens with what joins
several topic entities and the topic facts closest to the question
(:mod:`~kgcore.methods.fasttog.topic_facts`). Why, and what it measurably does:
``docs/research/fasttog_deviations.md`` (``start_leaves``, ``start_leaf_chains``, several
topic entities).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.community.lcs import Community
from kgcore.graph.store import GraphStore
from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.leaf_facts import leaf_links
from kgcore.methods.fasttog.result import ChainCommunity
from kgcore.methods.fasttog.topic_facts import TopicFacts, joint_sentence
from kgcore.text.triple2text import CommunityTextualizer


def links_several(community: Community, topic: Sequence[str]) -> bool:
    """Whether ``community`` links to more than one of the ``topic`` entities."""
    touched = {t.head if t.head in topic else t.tail for t in community.links}
    return len(touched & set(topic)) > 1


@dataclass(eq=False)
class StartCommunity:
    """The FastToG engine's start community and first options (a part of
    :class:`~kgcore.methods.fasttog.engine.FastToG`): the topic's facts on ``store`` as
    ``config`` says, with the ``topic_facts`` part's, written by ``textualizer``."""

    store: GraphStore
    config: FastToGConfig
    textualizer: CommunityTextualizer
    topic_facts: TopicFacts

    def first_options(
        self, candidates: Sequence[Community], topic: Sequence[str] = ()
    ) -> list[int]:
        """The indexes of the first step's candidates that may start a chain.

        With several topic entities (and ``shared_topics``), only the candidates that link to
        more than one of them are offered when there are any: what joins the topic entities is
        where a question about all of them ("which film of [A] did [B] direct") is answered,
        and a small model reads the chains it is shown side by side (``shared_first`` in
        :func:`~kgcore.community.lcs.coarse_prune` keeps them).

        With ``leaves.kept`` above 0 and without ``leaves.start_chains``, one-node candidates are
        left out (all are kept when no candidate has two or more nodes): their linking triples
        are already facts of the start community, which the first choice shows as its premise
        and every reasoning step shows first, and a chain grown from one of them would expand
        a year or a genre, a hub of thousands of films (the replayed first choices:
        ``docs/research/fasttog_deviations.md#start_leaf_chains``).

        >>> from kgcore.community.lcs import Community
        >>> from kgcore.graph import InMemoryGraphStore
        >>> from kgcore.methods.fasttog import FastToG
        >>> year = Community(("1963",), (), ())
        >>> director = Community(("All About Eve", "Joseph L. Mankiewicz"), (), ())
        >>> FastToG(InMemoryGraphStore()).start.first_options([year, director])
        [1]
        >>> FastToG(InMemoryGraphStore()).start.first_options([year])
        [0]
        """
        every = list(range(len(candidates)))
        if len(topic) > 1 and self.config.shared_topics:
            joining = [i for i in every if links_several(candidates[i], topic)]
            if joining:
                return joining
        if not self.config.leaves.shown or self.config.leaves.start_chains:
            return every
        return [i for i in every if len(candidates[i].nodes) > 1] or every

    def build(
        self, topic: Sequence[str], candidates: Sequence[Community], question: str = ""
    ) -> ChainCommunity:
        """The start community: the topic's triples and, with ``leaves.kept`` above 0, the linking
        triples of the one-node communities among the first step's ``candidates``.

        Community detection runs without the visited nodes, so a node that is linked to the
        topic and to nothing else sampled (its year, genre or language) is a community of its
        own; with the topic in the graph, modularity would put it in the topic's community.
        Its linking triples join the start community's facts, where the first pruning and every
        reasoning step see them; the node stays a candidate (how often a gold answer is such a
        neighbour: ``docs/research/fasttog_deviations.md#start_leaves``). With ``question``
        (and ``topic_facts``), the facts of the topic entities closest to it open the start
        community (:meth:`~kgcore.methods.fasttog.topic_facts.TopicFacts.closest`). Built
        once, after the first step: a Graph2Text textualizer runs a model per call.
        """
        triples = tuple(self.store.triples_among(topic))
        if self.config.leaves.shown:
            triples += leaf_links(candidates)
        # One batch read serves both the joint facts and the topic facts.
        facts = self.topic_facts
        with_facts = bool(question) and facts.gives_topic_facts
        linked = facts.links(topic) if with_facts else None
        joint, joint_links = facts.joint_neighbours(topic, linked)
        if joint_links:
            triples += tuple(t for t in joint_links if t not in triples)
        if with_facts:
            closest = facts.closest(question, topic, linked)
            triples = tuple(t for t in closest if t not in triples) + triples
        text = self.textualizer(topic, triples)
        if joint:
            text = f"{joint_sentence(topic, joint)} {text}"
        return ChainCommunity(
            chain=-1,
            depth=0,
            nodes=tuple(topic),
            triples=triples,
            links=(),
            text=text,
        )
