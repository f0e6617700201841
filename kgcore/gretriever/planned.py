"""Question-aware prizes for G-Retriever: the relation paths the question plans.

The paper prizes the nodes and edges whose text is closest to the question's embedding. That
finds what looks like the question ("films acted by Jane Seymour": her films), not what answers
it (their directors, two hops away). So the default retrieval also plans relation paths from
the topic entities with the path planning FastToG uses (:func:`kgcore.paths.reading.read_paths`:
paths ranked by closeness to the question), follows the best one on the graph, adds the
facts of the walks reaching its answers to the candidate region, and prizes them: each answer node
:data:`ANSWER_PRIZE`, each fact :data:`FACT_PRIZE`, beside the paper's prizes. PCST then joins
them to the topic (``GRetriever(paths=None)``, the ``paper`` preset, leaves this out).

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.paths.settings import PathSettings
>>> store = InMemoryGraphStore.from_triples([
...     ("Giant", "starred_actors", "Rock Hudson"), ("Giant", "directed_by", "George Stevens")])
>>> planned = plan_paths(store, "who directed the films of [Rock Hudson]", ["Rock Hudson"],
...                      PathSettings())
>>> "George Stevens" in planned.answers
True
>>> graph = TextualGraph.from_triples(planned.facts)
>>> nodes, edges = planned.prizes(graph)
>>> float(nodes[graph.position("George Stevens")]), sorted(set(edges.tolist()))
(3.0, [1.0])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore
from kgcore.gretriever.textgraph import TextualGraph
from kgcore.paths.ranking import path_scorer
from kgcore.paths.reading import read_paths
from kgcore.paths.settings import MAX_ANSWERS, PathSettings
from kgcore.text_vectors import BoundedTextVectors
from kgcore.types import Triple

__all__ = [
    "ANSWER_PRIZE",
    "FACT_PRIZE",
    "PathPlanner",
    "PlannedPaths",
    "plan_paths",
    "preset_paths",
]

#: The prize of a node a planned path reaches: the paper's top node prize (``k_nodes``, 3).
ANSWER_PRIZE = 3.0
#: The prize of a fact on a walk to a planned answer: twice the paper's edge cost, so PCST
#: keeps a walk whenever it reaches the tree.
FACT_PRIZE = 1.0


@dataclass(frozen=True)
class PlannedPaths:
    """The facts of the walks to the planned paths' answers, and those answers."""

    facts: tuple[Triple, ...] = ()
    answers: tuple[str, ...] = ()

    def prizes(self, graph: TextualGraph) -> tuple[np.ndarray, np.ndarray]:
        """Node and edge prizes on ``graph`` (zero where it holds no planned node or fact)."""
        nodes = np.zeros(graph.num_nodes, dtype=np.float32)
        for answer in self.answers:
            position = graph.position(answer)
            if position is not None:
                nodes[position] = ANSWER_PRIZE
        planned = {tuple(t) for t in self.facts}
        edges = np.array(
            [FACT_PRIZE if tuple(t) in planned else 0.0 for t in graph.triples()],
            dtype=np.float32,
        )
        return nodes, edges.reshape(-1)


class PathPlanner:
    """:func:`plan_paths` with ``embed``'s sentence embeddings kept (a bounded cache: the
    relation paths' texts recur question after question)."""

    def __init__(self, settings: PathSettings, embed: Callable[[list[str]], Any]) -> None:
        self.settings = settings
        self.vectors = BoundedTextVectors(embed)

    def plan(self, store: GraphStore, question: str, topic: Sequence[str]) -> PlannedPaths:
        """The planned paths of ``question`` from ``topic`` on ``store``."""
        return plan_paths(store, question, topic, self.settings, self.vectors.vectors, True)


def plan_paths(
    store: GraphStore,
    question: str,
    topic: Sequence[str],
    settings: PathSettings,
    embed: Callable[[list[str]], Any] | None = None,
    embed_caches: bool = False,
) -> PlannedPaths:
    """The best relation path ``question`` plans from ``topic`` (ranked with ``embed``'s
    sentence embeddings, else shared words; :func:`~kgcore.paths.reading.read_paths`),
    followed on ``store``: its answers (at most :data:`~kgcore.paths.settings.MAX_ANSWERS`)
    and the facts reaching each. The best path alone: with every followed path prized (3), on
    WebQSP's natural questions their facts crowded out the paper's (hit@1 0.63 -> 0.46 on the
    first 24 questions)."""
    if not topic or not settings.enabled:
        return PlannedPaths()
    scorer = path_scorer(embed, embed_caches=embed_caches)
    # The best path that reaches something: every followed path's facts crowded the prompt.
    followed, _ = read_paths(store, question, topic, settings, scorer, most=1)
    if not followed:
        return PlannedPaths()
    answers = followed[0].answers[:MAX_ANSWERS]
    return PlannedPaths(tuple(followed[0].supporting_facts(answers)), tuple(answers))


def preset_paths(preset: str | None) -> PathSettings | None:
    """The path planning of G-Retriever's ``preset``: the default's, or ``None`` for
    ``"paper"`` (the paper's prizes alone); another name is refused."""
    if preset not in (None, "paper"):
        raise ConfigurationError(f"G-Retriever's presets: 'paper'; got {preset!r}")
    return None if preset == "paper" else PathSettings()
