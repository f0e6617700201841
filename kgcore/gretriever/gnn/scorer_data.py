"""A retrieved subgraph as the node scorer reads it: a PyG ``Data`` per question.

The node scorer (:mod:`kgcore.gretriever.gnn.node_scorer`) reads G-Retriever's retrieved
subgraph with the question: node features are the sentence embeddings of the node names and a
flag for the topic entities; every edge is read in both directions, its features the embedding
of its relation and a direction flag (0: as stored, 1: reversed); ``q`` is the embedding of the
question with the topic entities' names taken out (the scorer learns what a question asks, not
whom it names). :func:`shuffled_triples` rewires a subgraph for the shuffled-graph ablation.

Example
-------
>>> import numpy as np
>>> data = scorer_data(
...     np.ones((2, 4), np.float32), [True, False], [(0, 1)], np.ones((1, 4), np.float32),
...     np.ones(4, np.float32))
>>> data.x.shape, data.edge_index.tolist(), data.edge_attr[:, -1].tolist(), data.q.shape
(torch.Size([2, 5]), [[0, 1], [1, 0]], [0.0, 1.0], torch.Size([1, 4]))
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from kgcore.types import Triple

if TYPE_CHECKING:
    from torch_geometric.data import Data


def scorer_data(
    node_vectors: np.ndarray,
    topic: Sequence[bool],
    edges: Sequence[tuple[int, int]],
    relation_vectors: np.ndarray,
    question_vector: np.ndarray,
    labels: Sequence[bool] | None = None,
) -> Data:
    """The scorer's ``Data``: ``x`` (node vector + topic flag), both directions of every edge
    (``edge_attr``: relation vector + direction flag), ``q`` (1, dim) and optionally ``y``.

    Parameters
    ----------
    node_vectors : (num_nodes, dim) array
        The node names' embeddings.
    topic : sequence of bool
        Whether each node is a topic entity.
    edges : sequence of (int, int)
        Each edge's (head, tail) node positions, as stored.
    relation_vectors : (num_edges, dim) array
        Each edge's relation embedding.
    question_vector : (dim,) array
        The question's embedding.
    labels : sequence of bool, optional
        Whether each node is a gold answer (training).
    """
    from torch_geometric.data import Data

    nodes = torch.as_tensor(np.asarray(node_vectors, dtype=np.float32))
    flags = torch.as_tensor(np.asarray(topic, dtype=np.float32)).reshape(-1, 1)
    pairs = torch.as_tensor(np.asarray(edges, dtype=np.int64).reshape(-1, 2)).T
    relations = torch.as_tensor(np.asarray(relation_vectors, dtype=np.float32))
    relations = relations.reshape(pairs.shape[1], nodes.shape[1])
    directions = torch.cat([torch.zeros(pairs.shape[1]), torch.ones(pairs.shape[1])])
    data = Data(
        x=torch.cat([nodes, flags], dim=1),
        edge_index=torch.cat([pairs, pairs.flip(0)], dim=1),
        edge_attr=torch.cat([torch.cat([relations, relations]), directions[:, None]], dim=1),
        q=torch.as_tensor(np.asarray(question_vector, dtype=np.float32)).reshape(1, -1),
        num_nodes=int(nodes.shape[0]),
    )
    if labels is not None:
        data.y = torch.as_tensor(np.asarray(labels, dtype=np.float32))
    return data


def without_names(question: str, names: Sequence[str]) -> str:
    """``question`` with each of ``names`` taken out (case-insensitive), spaces tidied.

    >>> without_names("what is the anna of holstein 's children ?", ["Anna of Holstein"])
    "what is the 's children ?"
    """
    for name in sorted(names, key=len, reverse=True):
        if name.strip():
            question = re.sub(re.escape(name.strip()), " ", question, flags=re.IGNORECASE)
    return re.sub(r"\s+", " ", question).strip() or question


def question_seed(question: str, seed: int = 0) -> int:
    """A seed of the question's text (the same every run and process)."""
    return zlib.crc32(question.encode("utf-8")) ^ seed


def shuffled_triples(triples: Sequence[Triple], seed: int) -> list[Triple]:
    """The shuffled-graph ablation: the same nodes and relations, wired at random.

    Each edge keeps its head; its tail is the tail of another edge (a seeded permutation) and
    its relation that of yet another (a second permutation), so the subgraph has the nodes and
    relation labels the retriever found but no longer says which facts hold.

    >>> triples = [Triple("a", "r", "b"), Triple("c", "s", "d"), Triple("e", "t", "f")]
    >>> shuffled = shuffled_triples(triples, seed=1)
    >>> sorted(t.tail for t in shuffled), sorted(t.relation for t in shuffled)
    (['b', 'd', 'f'], ['r', 's', 't'])
    """
    rng = np.random.default_rng(seed)
    tails = rng.permutation(len(triples))
    relations = rng.permutation(len(triples))
    return [
        Triple(triple.head, triples[int(r)].relation, triples[int(t)].tail)
        for triple, t, r in zip(triples, tails, relations, strict=True)
    ]
