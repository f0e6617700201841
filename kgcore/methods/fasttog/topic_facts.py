"""Topic and joint facts (this project's, not the paper's): what the graph holds right beside
the topic entities, read once per question.

- :meth:`TopicFacts.closest` (``topic_facts``): each neighbour's linking triple closest
  to the question, by sentence embeddings; the closest open the start community.
- :meth:`TopicFacts.joint_neighbours` (``joint_limit``): the nodes linked to every one of
  several topic entities, stated as one fact (:func:`joint_sentence`) that opens the start
  community.

Why, and what they measurably do: ``docs/research/fasttog_deviations.md`` (``topic_facts``,
``joint_limit``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.similarity import SimilarityChoices
from kgcore.text.triple2text import CommunityTextualizer, Triple2Text
from kgcore.types import Triple

if TYPE_CHECKING:
    from kgcore.graph.compound import CompoundNodeView

#: Triples read per topic entity to find the nodes that join several of them
#: (:meth:`TopicFacts.joint_neighbours`).
JOINT_READ_LIMIT = 2000


def joint_sentence(topic: Sequence[str], joint: Sequence[str]) -> str:
    """The fact that opens the start community with several topic entities: the nodes
    linked to every one of them.

    >>> joint_sentence(["Oceania", "Hagatna"], ["Guam"])
    'Linked to each of Oceania and Hagatna: Guam.'
    >>> joint_sentence(["A", "B", "C"], ["X", "Y"])
    'Linked to each of A, B and C: X; Y.'
    """
    names = f"{', '.join(topic[:-1])} and {topic[-1]}"
    return f"Linked to each of {names}: {'; '.join(joint)}."


@dataclass(eq=False)
class TopicFacts:
    """The FastToG engine's topic and joint facts (a part of
    :class:`~kgcore.methods.fasttog.engine.FastToG`): read on ``store`` with ``config``'s
    ``topic_facts`` and ``joint_limit``, ranked by ``similarity``, written as the
    ``textualizer`` writes a triple."""

    store: CompoundNodeView
    config: FastToGConfig
    textualizer: CommunityTextualizer
    similarity: SimilarityChoices

    @property
    def gives_topic_facts(self) -> bool:
        """Whether the start community opens with topic facts: ``topic_facts`` is above 0 and
        the engine ranks by similarity."""
        return self.config.topic_facts > 0 and self.similarity.ranks_by_similarity

    def links(self, topic: Sequence[str]) -> list[dict[str, list[Triple]]]:
        """For each ``topic`` entity, its neighbours (through an unnamed compound node too) with
        their linking triples, in canonical order: one batch read of at most
        :data:`JOINT_READ_LIMIT` triples per entity, so a hub costs no more than that."""
        batch = self.store.neighbors_batch(topic, limit=JOINT_READ_LIMIT)
        linked: list[dict[str, list[Triple]]] = []
        for entity in topic:
            by_node: dict[str, list[Triple]] = {}
            for triple in batch.get(entity, ()):
                by_node.setdefault(triple.other(entity), []).append(triple)
            linked.append(by_node)
        return linked

    def closest(
        self,
        question: str,
        topic: Sequence[str],
        linked: list[dict[str, list[Triple]]] | None = None,
    ) -> list[Triple]:
        """The ``topic_facts`` triples of the ``topic`` entities closest to ``question``: each
        neighbour's linking triple closest to it (cosine similarity of sentence embeddings of
        the triple as the textualizer writes it), best first; none when the engine does not
        rank by similarity (:attr:`gives_topic_facts`).

        One batch read of at most :data:`JOINT_READ_LIMIT` triples per topic entity (through
        an unnamed compound node too, never to one; ``linked``, :meth:`links`' result,
        when the caller already read it), and one embedding call; equal scores keep the
        graph's canonical order.

        >>> import numpy as np
        >>> from kgcore.graph import InMemoryGraphStore
        >>> from kgcore.methods.fasttog import FastToG, FastToGConfig
        >>> class Letters:  # a toy embedder: counts of a few letters
        ...     def embed(self, texts, progress=False):
        ...         return np.array([[t.count(c) + 0.1 for c in "xyz"] for t in texts])
        >>> store = InMemoryGraphStore.from_triples([
        ...     ("Mexico", "anthem", "Himno"), ("Mexico", "currency", "Peso"),
        ...     ("Peso", "used in", "Mexico")])
        >>> engine = FastToG(store, FastToGConfig(topic_facts=1), embedder=Letters())
        >>> engine.topic_facts.closest("yyy", ["Mexico"])
        [Triple(head='Mexico', relation='currency', tail='Peso')]
        >>> FastToG(store, FastToGConfig(topic_facts=1)).topic_facts.closest("yyy", ["Mexico"])
        []
        """
        limit = self.config.topic_facts
        if not self.gives_topic_facts:
            return []
        excluded = set(topic)
        candidates: list[Triple] = []
        for by_node in self.links(topic) if linked is None else linked:
            for node, linking in by_node.items():
                if node not in excluded and not self.store.is_unnamed(node):
                    candidates.extend(linking)
        candidates = list(dict.fromkeys(candidates))
        if not candidates:
            return []
        # Ranked as the rule-based Triple2Text writes them: a Graph2Text textualizer would run
        # its model once per candidate.
        writer = self.textualizer if isinstance(self.textualizer, Triple2Text) else Triple2Text()
        scores = self.similarity.similarities(question, [writer((), (t,)) for t in candidates])
        kept: dict[str, Triple] = {}
        for i in sorted(range(len(candidates)), key=lambda i: -float(scores[i])):
            triple = candidates[i]
            kept.setdefault(triple.tail if triple.head in excluded else triple.head, triple)
            if len(kept) == limit:
                break
        return list(kept.values())

    def joint_neighbours(
        self, topic: Sequence[str], linked: list[dict[str, list[Triple]]] | None = None
    ) -> tuple[list[str], list[Triple]]:
        """The named nodes linked to every one of several ``topic`` entities (through an
        unnamed compound node too), and their linking triples: at most ``joint_limit``, else
        none (a question with one topic entity has none).

        One batch read of at most :data:`JOINT_READ_LIMIT` triples per topic entity, so a hub
        costs no more than that (``linked``, :meth:`links`' result, when the caller
        already read it). How often a gold answer is among these nodes:
        ``docs/research/fasttog_deviations.md#joint_limit``.

        >>> from kgcore.graph import InMemoryGraphStore
        >>> from kgcore.methods.fasttog import FastToG
        >>> store = InMemoryGraphStore.from_triples([
        ...     ("Guam", "capital", "Hagatna"), ("Guam", "contained by", "Oceania"),
        ...     ("Palau", "contained by", "Oceania")])
        >>> FastToG(store).topic_facts.joint_neighbours(["Oceania", "Hagatna"])[0]
        ['Guam']
        >>> FastToG(store).topic_facts.joint_neighbours(["Oceania"])
        ([], [])
        """
        limit = self.config.joint_limit
        if len(topic) < 2 or limit == 0:
            return [], []
        linked = self.links(topic) if linked is None else linked
        excluded = set(topic)
        joint = [
            node
            for node in linked[0]  # in the first topic entity's canonical order
            if node not in excluded
            and not self.store.is_unnamed(node)
            and all(node in by_node for by_node in linked[1:])
        ]
        if not joint or len(joint) > limit:
            return [], []
        links = [t for node in joint for by_node in linked for t in by_node[node]]
        return joint, list(dict.fromkeys(links))
