"""What the node scorer reads for a question: G-Retriever's retrieved subgraph as ``Data``.

:class:`SubgraphReader` links the question's topic entities (no model call), retrieves its PCST
subgraph with G-Retriever's retriever (as :class:`~kgcore.methods.gretriever.qa.GRetrieverQA`
builds it, with the settings given, e.g. a checkpoint's), optionally rewires it for the
shuffled-graph ablation, and turns it into the scorer's ``Data``
(:func:`~kgcore.gretriever.gnn.scorer_data.scorer_data`). The trained ``gretriever-gnn`` method
and its training (:mod:`kgmodels.gnn.node_scoring_training`) read questions through it, so a
question is read the same way in both.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> reader = SubgraphReader(InMemoryGraphStore.from_triples([("a", "r", "b")]))
... # doctest: +SKIP
>>> reader.read("what is a 's r ?", ["a"]).node_texts  # doctest: +SKIP
('a', 'b')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore
from kgcore.gretriever.gnn.graph_data import VectorLookup
from kgcore.gretriever.gnn.scorer_data import (
    question_seed,
    scorer_data,
    shuffled_triples,
    without_names,
)
from kgcore.linking import bracketed_entities, link_entities
from kgcore.types import Triple

if TYPE_CHECKING:
    from torch_geometric.data import Data

    from kgcore.gretriever.result import GRetrieverResult

#: How the scorer reads the retrieved subgraph: as retrieved, or rewired (the ablation).
SUBGRAPH_MODES = ("intact", "shuffled")


def check_subgraph_mode(mode: str) -> str:
    """``mode`` when it is one of :data:`SUBGRAPH_MODES`, else a ConfigurationError."""
    if mode not in SUBGRAPH_MODES:
        raise ConfigurationError(
            f"unknown subgraph={mode!r}; expected one of {', '.join(SUBGRAPH_MODES)}"
        )
    return mode


@dataclass(frozen=True)
class ScorerInput:
    """One question's subgraph as the scorer reads it.

    Attributes
    ----------
    topics : tuple of str
        The linked topic entities (graph nodes).
    retrieved : GRetrieverResult
        What the retriever returned.
    triples : tuple of Triple
        The subgraph's edges as the scorer reads them (rewired when shuffled).
    node_texts : tuple of str
        The nodes, in ``data``'s order.
    data : Data
        The scorer's input (with ``y`` when answers were given).
    """

    topics: tuple[str, ...]
    retrieved: GRetrieverResult
    triples: tuple[Triple, ...]
    node_texts: tuple[str, ...]
    data: Data


class SubgraphReader:
    """Retrieve a question's subgraph and make it the scorer's input.

    Parameters
    ----------
    store : GraphStore
        The knowledge graph.
    embedder : TextEmbedder, optional
        Default: the offline all-MiniLM-L6-v2 (what the scorer was trained on).
    subgraph : {"intact", "shuffled"}
        ``shuffled``: each subgraph rewired, seeded by the question and ``seed``
        (:func:`~kgcore.gretriever.gnn.scorer_data.shuffled_triples`).
    seed : int
        Seed of the rewiring.
    settings :
        G-Retriever's retrieval settings (PCST and region, as for ``gretriever``).
    """

    def __init__(
        self,
        store: GraphStore,
        embedder: Any = None,
        subgraph: str = "intact",
        seed: int = 0,
        **settings: Any,
    ) -> None:
        from kgcore.methods.gretriever.qa import GRetrieverQA

        self.subgraph = check_subgraph_mode(subgraph)
        self.seed = int(seed)
        # The paper's retrieval: the subgraphs the scorers were trained on.
        engine = GRetrieverQA(
            store, embedder=embedder, max_graph_tokens=None, preset="paper", **settings
        )
        self.store = engine.store
        self.retriever = engine.retriever
        index = self.retriever.index
        tables = (index.nodes, index.edges) if index is not None else ()
        self.lookup = VectorLookup(self.retriever.embedder, tables)

    def topics(self, question: str, topic_entities: Sequence[str] | None) -> list[str]:
        """The topic entities as graph nodes: the given ones, else the bracketed names, else
        the names the question writes as the graph spells them (no model is asked)."""
        names = list(topic_entities or ()) or bracketed_entities(question)
        if names:
            return link_entities(self.store, names)
        return self.retriever.question_topics(question)

    def question_vector(self, question: str, names: Sequence[str]) -> np.ndarray:
        """The embedding of the question with the topic entities' names taken out."""
        embedder = getattr(self.retriever.embedder, "uncached", self.retriever.embedder)
        assert embedder is not None  # GRetriever refuses to be built without one
        text = without_names(question, names)
        return np.asarray(embedder.embed([text]), np.float32)[0]

    def read(
        self,
        question: str,
        topic_entities: Sequence[str] | None = None,
        answers: Sequence[str] | None = None,
    ) -> ScorerInput:
        """The scorer's input for ``question`` (labels from ``answers`` when given)."""
        topics = self.topics(question, topic_entities)
        retrieved = self.retriever.retrieve(question, topic_entities=topics or None)
        triples = tuple(retrieved.edges)
        if self.subgraph == "shuffled":
            triples = tuple(shuffled_triples(triples, question_seed(question, self.seed)))
        nodes = tuple(dict.fromkeys([*retrieved.node_texts, *(n for t in triples for n in t[::2])]))
        position = {name: i for i, name in enumerate(nodes)}
        topic_set = set(topics)
        gold = {a.casefold() for a in answers} if answers is not None else None
        data = scorer_data(
            self.lookup.vectors(list(nodes)),
            [n in topic_set for n in nodes],
            [(position[t.head], position[t.tail]) for t in triples],
            self.lookup.vectors([t.relation for t in triples]),
            self.question_vector(question, [*(topic_entities or ()), *topics]),
            labels=None if gold is None else [n.casefold() in gold for n in nodes],
        )
        return ScorerInput(tuple(topics), retrieved, triples, nodes, data)
