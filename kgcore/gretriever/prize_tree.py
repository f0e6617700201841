"""The paper's retrieval on one textual graph: node and edge prizes from the question's
similarities, then the Prize-Collecting Steiner Tree (:func:`retrieve_in_graph`).
:class:`~kgcore.gretriever.retriever.GRetriever` calls it on the whole graph or a candidate region.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgcore.exceptions import EmbeddingError
from kgcore.gretriever.pcst import solve_pcst
from kgcore.gretriever.prizes import edge_prizes, node_prizes
from kgcore.gretriever.result import GRetrieverResult
from kgcore.gretriever.settings import PCSTSettings
from kgcore.gretriever.textgraph import TextualGraph

__all__ = ["retrieve_in_graph"]


def retrieve_in_graph(
    graph: TextualGraph,
    node_similarity: np.ndarray,
    edge_similarity: np.ndarray,
    settings: PCSTSettings | None = None,
    question: str = "",
    seeds: Sequence[str] = (),
    bonus: tuple[np.ndarray, np.ndarray] | None = None,
) -> GRetrieverResult:
    """The paper's prizes and PCST on one graph, given its similarities to the question
    (``bonus``: node and edge prizes added to the paper's, :mod:`kgcore.gretriever.planned`).

    Example
    -------
    >>> graph = TextualGraph.from_triples([("a", "r", "b"), ("c", "s", "d")])
    >>> result = retrieve_in_graph(graph, np.array([0.9, 0.8, 0.1, 0.0]), np.array([0.7, 0.1]),
    ...                            PCSTSettings(k_nodes=2, k_edges=1))
    >>> result.node_texts, [tuple(t) for t in result.edges]
    (('a', 'b'), [('a', 'r', 'b')])
    """
    graph.require_nonempty()
    if len(node_similarity) != graph.num_nodes or len(edge_similarity) != graph.num_edges:
        raise EmbeddingError(
            f"got {len(node_similarity)} node and {len(edge_similarity)} edge similarities "
            f"for a graph of {graph.num_nodes} nodes and {graph.num_edges} edges"
        )
    settings = settings or PCSTSettings()
    n_prizes = node_prizes(node_similarity, settings.k_nodes)
    e_prizes = edge_prizes(edge_similarity, settings.k_edges)
    if bonus is not None:
        n_prizes, e_prizes = n_prizes + bonus[0], e_prizes + bonus[1]
    solution = solve_pcst(
        graph.edge_index,
        n_prizes,
        e_prizes,
        settings.edge_cost,
        k_edges=settings.k_edges,
        num_clusters=settings.num_clusters,
    )
    edge_ids = solution.edge_ids.tolist()
    endpoints = graph.edge_index[:, solution.edge_ids].T.tolist()
    return GRetrieverResult(
        question=question,
        node_ids=tuple(solution.node_ids.tolist()),
        node_texts=tuple(graph.node_texts[i] for i in solution.node_ids),
        edge_ids=tuple(edge_ids),
        edges=tuple(graph.triples(edge_ids)),
        edge_endpoints=tuple((int(s), int(d)) for s, d in endpoints),
        node_prizes=tuple(float(p) for p in n_prizes[solution.node_ids]),
        edge_prizes=tuple(float(p) for p in e_prizes[solution.edge_ids]),
        objective=solution.objective,
        edge_cost=solution.edge_cost,
        searched_nodes=graph.num_nodes,
        searched_edges=graph.num_edges,
        seeds=tuple(seeds),
        searched_graph=graph,
    )
