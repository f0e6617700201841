"""``gretriever-gnn`` with a node-scorer checkpoint: G-Retriever's GNN answers from the subgraph.

GNN-RAG style: G-Retriever's retriever returns the question's PCST subgraph, the trained
question-conditioned GNN (:mod:`kgcore.gretriever.gnn.node_scorer`) scores every node of it,
and the best-scored node is the answer. The reader is the scorer itself: no LLM is asked
(``llm_calls`` is 0). The result's ``context`` holds the facts that tie the answer to a topic
entity in the subgraph the GNN read (a shortest path, so a user sees why), ``extra`` the
best-scored nodes with their probabilities, the subgraph mode and the subgraph's size.

The retrieval settings are the checkpoint's (``retrieval`` in its metadata, e.g. 3 hops and
``k_nodes=k_edges=100``), which options override. ``subgraph="shuffled"`` rewires every retrieved
subgraph (seeded by the question) before the GNN reads it: the ablation that shows whether the
scorer reads the graph or only the names.

Example
-------
.. code-block:: console

    $ kgqa eval --method gretriever-gnn --data pathquestion:PQ-3H:50 --out runs/ \\
          --set checkpoint=models/gretriever-gnn/pq-scorer/best.safetensors
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from kgcore.graph.store import GraphStore
from kgcore.gretriever.gnn.node_scorer import ScorerCheckpoint, load_scorer
from kgcore.llm.protocol import Steps
from kgcore.methods.base import StepMethod
from kgcore.methods.gretriever.scorer_input import ScorerInput, SubgraphReader
from kgcore.methods.kernel import UNKNOWN
from kgcore.methods.result import MethodResult
from kgcore.types import Triple
from kgcore.validation import check_question

#: Best-scored nodes listed in ``extra["scores"]``.
TOP_SCORES = 5

_SCORERS: dict[str, ScorerCheckpoint] = {}
_SCORERS_LOCK = threading.Lock()


def shared_scorer(checkpoint: str | Path) -> ScorerCheckpoint:
    """The node scorer of ``checkpoint``, loaded once per process."""
    key = str(Path(checkpoint).resolve())
    with _SCORERS_LOCK:
        if key not in _SCORERS:
            _SCORERS[key] = load_scorer(checkpoint)
        return _SCORERS[key]


def path_to(triples: Sequence[Triple], sources: Sequence[str], target: str) -> list[Triple]:
    """The facts of a shortest path (edges read either way) from one of ``sources`` to
    ``target``; ``[]`` when ``target`` is a source or out of reach.

    >>> facts = [Triple("a", "r", "b"), Triple("c", "s", "b"), Triple("c", "t", "d")]
    >>> [tuple(t) for t in path_to(facts, ["a"], "d")]
    [('a', 'r', 'b'), ('c', 's', 'b'), ('c', 't', 'd')]
    """
    neighbours: dict[str, list[tuple[str, Triple]]] = {}
    for triple in triples:
        neighbours.setdefault(triple.head, []).append((triple.tail, triple))
        neighbours.setdefault(triple.tail, []).append((triple.head, triple))
    came: dict[str, tuple[str, Triple] | None] = {s: None for s in sources}
    frontier = list(dict.fromkeys(sources))
    while frontier and target not in came:
        following: list[str] = []
        for node in frontier:
            for other, triple in neighbours.get(node, ()):
                if other not in came:
                    came[other] = (node, triple)
                    following.append(other)
        frontier = following
    path: list[Triple] = []
    node = target
    while came.get(node) is not None:
        previous, triple = came[node]  # type: ignore[misc]
        path.append(triple)
        node = previous
    return path[::-1]


class GRetrieverScorerQA(StepMethod[MethodResult]):
    """Retrieve the PCST subgraph, answer with its best node by the trained GNN.

    Parameters
    ----------
    store : GraphStore
        The knowledge graph.
    checkpoint : path, optional
        A node-scorer ``.safetensors`` written by ``kgqa gretriever train --mode scorer``.
    scorer : ScorerCheckpoint, optional
        A loaded scorer to use instead of ``checkpoint``.
    embedder : TextEmbedder, optional
        Default: the offline all-MiniLM-L6-v2 (the embeddings the scorer was trained on).
    subgraph : {"intact", "shuffled"}
        ``shuffled``: the ablation (each subgraph rewired, seeded, before the GNN reads it).
    seed : int
        Seed of the rewiring.
    settings :
        Retrieval settings overriding the checkpoint's (``k_nodes``, ``hops``...).
    """

    name = "gretriever-gnn"

    def __init__(
        self,
        store: GraphStore,
        checkpoint: str | Path | None = None,
        scorer: ScorerCheckpoint | None = None,
        embedder: Any = None,
        subgraph: str = "intact",
        seed: int = 0,
        **settings: Any,
    ) -> None:
        if scorer is None:
            if checkpoint is None:
                from kgcore.exceptions import ConfigurationError

                raise ConfigurationError("gretriever-gnn needs --set checkpoint=PATH")
            scorer = shared_scorer(checkpoint)
        self.scorer = scorer
        self.retrieval = {**scorer.retrieval, **settings}
        self.reader = SubgraphReader(
            store, embedder, subgraph=subgraph, seed=seed, **self.retrieval
        )
        self.subgraph = self.reader.subgraph

    def scores(self, read: ScorerInput) -> list[float]:
        """The probability the scorer gives each node of ``read`` of being an answer."""
        if not read.node_texts:
            return []
        with torch.no_grad():
            return torch.sigmoid(self.scorer.model(read.data)).tolist()

    def answer(self, question: str, topic_entities: Sequence[str] | None = None) -> MethodResult:
        """Retrieve, score and answer ``question`` (no model call)."""
        from kgcore.methods.kernel.meter import RunMeter

        question = check_question(question)
        meter = RunMeter()
        with meter.graph():
            read = self.reader.read(question, topic_entities)
            probabilities = self.scores(read)
        ranked = sorted(zip(read.node_texts, probabilities, strict=True), key=lambda p: -p[1])
        best = ranked[0][0] if ranked else UNKNOWN
        facts = path_to(read.triples, read.topics, best) if ranked else []
        result = MethodResult(
            question=question,
            answer=best,
            method=self.name,
            depth=len(facts),
            grounded=bool(ranked),
            context="\n".join(f"({t.head}, {t.relation}, {t.tail})" for t in facts),
        )
        result.extra.update(
            {
                "topic_entities": list(read.topics),
                "scores": [[node, round(p, 4)] for node, p in ranked[:TOP_SCORES]],
                "subgraph": self.subgraph,
                "nodes": len(read.node_texts),
                "edges": len(read.triples),
                "retrieval": dict(self.retrieval),
            }
        )
        return meter.finish(result)

    def steps(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[MethodResult]:
        """A step generator that yields no request: the scorer answers."""
        return self.answer(question, topic_entities)
        yield  # pragma: no cover - makes this a generator
