"""Textual graphs -> PyG ``Data``: node and edge features from sentence embeddings.

A graph prompt reads the same sentence embeddings G-Retriever's retrieval computes: node texts,
and edge texts (the relation, or ``head relation tail`` when the index was built that way).
:func:`result_to_data` converts a retrieved :class:`~kgcore.gretriever.GRetrieverResult`
(looking vectors up in its :class:`~kgcore.gretriever.GraphIndex` when one is given);
:func:`textual_graph_to_data` converts a whole :class:`~kgcore.gretriever.TextualGraph`, as
ExplaGraphs' small per-question graphs are used whole in the paper.

Example
-------
>>> import numpy as np
>>> from kgcore.gretriever.textgraph import TextualGraph
>>> class Fake:
...     model_id = "fake"
...     def embed(self, texts, progress=False):
...         return np.ones((len(texts), 4), dtype=np.float32)
>>> graph = TextualGraph.from_triples([("cannabis", "synonym of", "marijuana")])
>>> data = textual_graph_to_data(graph, Fake())
>>> data.x.shape, data.edge_index.tolist(), data.edge_attr.shape
(torch.Size([2, 4]), [[0], [1]], torch.Size([1, 4]))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from kgcore.embeddings import TextEmbedder
from kgcore.exceptions import EmbeddingError
from kgcore.gretriever.index import EmbeddedTexts
from kgcore.gretriever.textgraph import EdgeTextMode, TextualGraph
from kgcore.gretriever.textualize import textualize_paper

if TYPE_CHECKING:
    from torch_geometric.data import Data

    from kgcore.gretriever.index import GraphIndex
    from kgcore.gretriever.result import GRetrieverResult


class VectorLookup:
    """Embeddings of texts: looked up in a table, the missing ones embedded and memoised.

    Parameters
    ----------
    embedder : TextEmbedder
        Embeds texts the table lacks.
    tables : sequence of EmbeddedTexts
        Vectors already computed (e.g. a :class:`~kgcore.gretriever.GraphIndex`'s node and
        edge tables; one model embeds both, so a text has one vector).

    Example
    -------
    >>> lookup = VectorLookup(None, [EmbeddedTexts.from_vectors(["a"], np.eye(1, 2))])
    >>> lookup.vectors(["a", "a"]).tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """

    def __init__(self, embedder: TextEmbedder | None, tables: Sequence[EmbeddedTexts] = ()) -> None:
        self.embedder = embedder
        self._memo: dict[str, np.ndarray] = {}
        for table in tables:
            for text, vector in zip(table.unique_texts, table.vectors, strict=True):
                self._memo.setdefault(text, vector)

    def add(self, texts: Sequence[str]) -> None:
        """Embed, in one batch, every text of ``texts`` not yet known."""
        new = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if not new:
            return
        if self.embedder is None:
            raise EmbeddingError(
                f"{len(new)} texts have no embedding (first: {new[0]!r}) and no embedder was given"
            )
        fresh = EmbeddedTexts.embed(new, self.embedder)
        self._memo.update(zip(new, fresh.vectors[fresh.rows], strict=True))

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 rows."""
        self.add(texts)
        if not texts:
            dim = next(iter(self._memo.values())).shape[0] if self._memo else 0
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts]).astype(np.float32, copy=False)

    def to_arrays(self) -> tuple[list[str], np.ndarray]:
        """Every known text (sorted) and its vectors, to cache on disk."""
        texts = sorted(self._memo)
        vectors = self.vectors(texts) if texts else np.zeros((0, 0), dtype=np.float32)
        return texts, vectors


def make_data(node_vectors: np.ndarray, edge_index: np.ndarray, edge_vectors: np.ndarray) -> Data:
    """A PyG ``Data`` with ``x``, ``edge_index`` (long) and ``edge_attr``."""
    from torch_geometric.data import Data

    edge_index = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    if edge_index.shape[1] != len(edge_vectors):
        raise EmbeddingError(f"{edge_index.shape[1]} edges but {len(edge_vectors)} edge embeddings")
    x = torch.as_tensor(np.asarray(node_vectors, dtype=np.float32))
    edge_attr = torch.as_tensor(np.asarray(edge_vectors, dtype=np.float32))
    if edge_attr.ndim != 2 or (len(edge_attr) == 0 and x.ndim == 2):
        edge_attr = edge_attr.reshape(len(edge_attr), x.shape[1] if x.ndim == 2 else 0)
    return Data(
        x=x,
        edge_index=torch.as_tensor(edge_index),
        edge_attr=edge_attr,
        num_nodes=int(x.shape[0]),
    )


def edge_texts(relations: Sequence[str], triples: Sequence[Sequence[str]], mode: str) -> list[str]:
    """The text of each edge: its relation, or ``head relation tail``."""
    if mode == "triple":
        return [f"{h} {r} {t}" for h, r, t in triples]
    return list(relations)


def textual_graph_to_data(
    graph: TextualGraph,
    embedder: TextEmbedder | VectorLookup,
    edge_text: EdgeTextMode = "relation",
) -> Data:
    """A whole textual graph as ``Data`` (node ``i`` is ``graph.node_texts[i]``)."""
    lookup = embedder if isinstance(embedder, VectorLookup) else VectorLookup(embedder)
    texts = graph.edge_texts(edge_text)
    return make_data(
        lookup.vectors(list(graph.node_texts)), graph.edge_index, lookup.vectors(list(texts))
    )


def graph_text(graph: TextualGraph) -> str:
    """The paper's textual graph of a whole :class:`TextualGraph` (node and edge tables)."""
    return textualize_paper(
        enumerate(graph.node_texts),
        (
            (int(s), r, int(d))
            for (s, d), r in zip(graph.edge_index.T.tolist(), graph.edge_relations, strict=True)
        ),
    )


def result_to_data(
    result: GRetrieverResult,
    embedder: TextEmbedder | None = None,
    index: GraphIndex | None = None,
) -> Data:
    """The retrieved subgraph as ``Data``, nodes numbered in the result's order.

    Vectors come from ``index`` (the retriever's own embeddings) where it has them, else from
    ``embedder``; edge texts follow the index's edge-text mode (relations without an index).
    """
    lookup = VectorLookup(
        embedder if embedder is not None else (index.embedder if index else None),
        (index.nodes, index.edges) if index is not None else (),
    )
    local = {node: position for position, node in enumerate(result.node_ids)}
    endpoints = np.array(
        [
            [local[s] for s, _ in result.edge_endpoints],
            [local[d] for _, d in result.edge_endpoints],
        ],
        dtype=np.int64,
    ).reshape(2, -1)
    mode = index.edge_text if index is not None else "relation"
    texts = edge_texts([t.relation for t in result.edges], result.edges, mode)
    return make_data(lookup.vectors(list(result.node_texts)), endpoints, lookup.vectors(texts))
