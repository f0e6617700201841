"""The Prize-Collecting Steiner Tree step of G-Retriever, solved with ``pcst_fast``.

An edge whose prize exceeds the edge cost ``C_e`` becomes a *virtual node* carrying prize
``P - C_e``, joined to its endpoints by two zero-cost edges; every other edge costs ``C_e - P``.
``pcst_fast`` (Goemans-Williamson with GW pruning, unrooted, one cluster) then picks the tree.
Everything is built with numpy arrays: there is no Python loop over edges.

Example
-------
>>> edge_index = np.array([[0, 1], [1, 2]])          # a path 0 - 1 - 2
>>> solution = solve_pcst(edge_index.T.reshape(2, -1), np.array([3.0, 0.0, 2.0], np.float32),
...                       np.zeros(2, np.float32), edge_cost=0.5)
>>> solution.node_ids.tolist(), solution.edge_ids.tolist()
([0, 1, 2], [0, 1])
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgcore.exceptions import ConfigurationError, EmbeddingError, MissingDependencyError
from kgcore.gretriever.prizes import TIE_DISCOUNT


@dataclass(frozen=True)
class PCSTProblem:
    """The PCST instance handed to ``pcst_fast``.

    Attributes
    ----------
    edges : numpy.ndarray
        ``(M, 2)`` int64 endpoints: the kept real edges first, then two edges per virtual node.
    prizes : numpy.ndarray
        float64 prize of each vertex: the real nodes, then the virtual nodes.
    costs : numpy.ndarray
        float64 cost of each PCST edge.
    num_nodes : int
        Number of real nodes (virtual node ``v`` is vertex ``num_nodes + v``).
    real_edge_ids : numpy.ndarray
        Original edge id of each kept real PCST edge (the first ``len(real_edge_ids)`` edges).
    virtual_edge_ids : numpy.ndarray
        Original edge id of each virtual node.
    edge_cost : float
        The edge cost actually used (lowered so that the best edge can always be bought).
    """

    edges: np.ndarray
    prizes: np.ndarray
    costs: np.ndarray
    num_nodes: int
    real_edge_ids: np.ndarray
    virtual_edge_ids: np.ndarray
    edge_cost: float


@dataclass(frozen=True)
class PCSTSolution:
    """The selected subgraph: node and edge ids of the input graph, and the tree's value.

    ``objective`` is the net prize of the PCST tree: prizes of its vertices (virtual ones
    included) minus the costs of its edges. Higher is better.
    """

    node_ids: np.ndarray
    edge_ids: np.ndarray
    objective: float
    edge_cost: float


def effective_edge_cost(edge_prizes: np.ndarray, edge_cost: float, k_edges: int) -> float:
    """The paper's cost, lowered below the best edge prize so at least one edge can be chosen.

    With ``k_edges == 0`` no edge has a prize and ``edge_cost`` is used as given.
    """
    if k_edges > 0 and len(edge_prizes):
        return min(edge_cost, float(edge_prizes.max()) * (1 - TIE_DISCOUNT / 2))
    return edge_cost


def build_pcst_problem(
    edge_index: np.ndarray, node_prizes: np.ndarray, edge_prizes: np.ndarray, edge_cost: float
) -> PCSTProblem:
    """Turn prized nodes and edges into a PCST instance with virtual nodes for rich edges.

    Parameters
    ----------
    edge_index : numpy.ndarray
        ``(2, E)`` source and destination of each edge.
    node_prizes, edge_prizes : numpy.ndarray
        float32 prizes, one per node and one per edge.
    edge_cost : float
        ``C_e`` (already lowered by :func:`effective_edge_cost` when wanted).

    Example
    -------
    >>> p = build_pcst_problem(np.array([[0], [1]]), np.zeros(2, np.float32),
    ...                        np.array([2.0], np.float32), 0.5)
    >>> p.edges.tolist(), p.prizes.tolist(), p.costs.tolist()
    ([[0, 2], [2, 1]], [0.0, 0.0, 1.5], [0.0, 0.0])
    """
    edge_index = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    node_prizes = np.asarray(node_prizes, dtype=np.float32)
    edge_prizes = np.asarray(edge_prizes, dtype=np.float32)
    if len(edge_prizes) != edge_index.shape[1]:
        raise EmbeddingError(f"{len(edge_prizes)} edge prizes for {edge_index.shape[1]} edges")
    if not np.isfinite(edge_cost) or edge_cost < 0:
        raise ConfigurationError(f"edge cost must be a non-negative number, got {edge_cost!r}")
    num_nodes = len(node_prizes)
    # float32 like the reference: a Python float meets float32 prizes as a float32 (NEP 50).
    cost32 = np.float32(edge_cost)
    is_virtual = edge_prizes > cost32
    real_ids = np.flatnonzero(~is_virtual)
    virtual_ids = np.flatnonzero(is_virtual)
    real_edges = edge_index[:, real_ids].T
    real_costs = (cost32 - edge_prizes[real_ids]).astype(np.float64)

    virtual_nodes = num_nodes + np.arange(len(virtual_ids), dtype=np.int64)
    virtual_edges = np.empty((2 * len(virtual_ids), 2), dtype=np.int64)
    virtual_edges[0::2, 0] = edge_index[0, virtual_ids]
    virtual_edges[0::2, 1] = virtual_nodes
    virtual_edges[1::2, 0] = virtual_nodes
    virtual_edges[1::2, 1] = edge_index[1, virtual_ids]

    prizes = np.concatenate([node_prizes, edge_prizes[virtual_ids] - cost32]).astype(np.float64)
    return PCSTProblem(
        edges=np.ascontiguousarray(np.concatenate([real_edges, virtual_edges]), dtype=np.int64),
        prizes=prizes,
        costs=np.concatenate([real_costs, np.zeros(len(virtual_edges))]),
        num_nodes=num_nodes,
        real_edge_ids=real_ids,
        virtual_edge_ids=virtual_ids,
        edge_cost=float(edge_cost),
    )


@functools.lru_cache(maxsize=1)
def _checked_pcst_fast() -> Any:
    """``pcst_fast``, after checking it answers a three-node path correctly.

    The ``pcst-fast`` 1.0.10 wheels return garbage indices under numpy 2; ``pcst-fast2`` (the
    maintained fork, same ``pcst_fast`` module) does not. Failing loudly beats a wrong subgraph.
    """
    try:
        from pcst_fast import pcst_fast
    except ImportError as err:  # pragma: no cover - depends on the install
        raise MissingDependencyError("pcst-fast2", None) from err
    vertices, edges = pcst_fast(
        np.array([[0, 1], [1, 2]], dtype=np.int64),
        np.array([3.0, 0.0, 2.0]),
        np.array([0.5, 0.5]),
        -1,
        1,
        "gw",
        0,
    )
    picked = (sorted(np.asarray(vertices).tolist()), sorted(np.asarray(edges).tolist()))
    if picked != ([0, 1, 2], [0, 1]):
        raise ConfigurationError(
            "the installed pcst_fast returns wrong results (pcst-fast 1.0.10 under numpy 2): "
            "pip uninstall pcst-fast && pip install pcst-fast2"
        )
    return pcst_fast


def run_pcst(problem: PCSTProblem, edge_index: np.ndarray, num_clusters: int = 1) -> PCSTSolution:
    """Solve a :class:`PCSTProblem` with ``pcst_fast`` and map the tree back to the graph.

    The selected nodes are the tree's real vertices plus both endpoints of every selected edge.
    """
    pcst_fast = _checked_pcst_fast()
    if num_clusters < 1:
        raise ConfigurationError(f"num_clusters must be at least 1, got {num_clusters}")
    edge_index = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    vertices, pcst_edges = pcst_fast(
        problem.edges, problem.prizes, problem.costs, -1, num_clusters, "gw", 0
    )
    vertices = np.asarray(vertices, dtype=np.int64)
    pcst_edges = np.asarray(pcst_edges, dtype=np.int64)
    num_real = len(problem.real_edge_ids)
    chosen_real = problem.real_edge_ids[pcst_edges[pcst_edges < num_real]]
    virtual_vertices = vertices[vertices >= problem.num_nodes]
    chosen_virtual = problem.virtual_edge_ids[virtual_vertices - problem.num_nodes]
    edge_ids = np.unique(np.concatenate([chosen_real, chosen_virtual]))
    node_ids = np.unique(
        np.concatenate([vertices[vertices < problem.num_nodes], edge_index[:, edge_ids].ravel()])
    )
    objective = float(problem.prizes[vertices].sum() - problem.costs[pcst_edges].sum())
    return PCSTSolution(node_ids, edge_ids, objective, problem.edge_cost)


def solve_pcst(
    edge_index: np.ndarray,
    node_prizes: np.ndarray,
    edge_prizes: np.ndarray,
    edge_cost: float = 0.5,
    k_edges: int | None = None,
    num_clusters: int = 1,
) -> PCSTSolution:
    """Select the PCST subgraph of a prized graph.

    Parameters
    ----------
    edge_index : numpy.ndarray
        ``(2, E)`` edge endpoints.
    node_prizes, edge_prizes : numpy.ndarray
        Prizes (see :mod:`kgcore.gretriever.prizes`).
    edge_cost : float
        ``C_e``; lowered below the best edge prize unless ``k_edges == 0``.
    k_edges : int, optional
        How many edge ranks got a prize; ``0`` keeps ``edge_cost`` as given. Default: inferred
        (any positive edge prize counts as ranked).
    num_clusters : int
        Trees in the forest (the paper: 1).

    A graph without edges keeps all its nodes, as PyG's reference does.
    """
    edge_index = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    node_prizes = np.asarray(node_prizes, dtype=np.float32)
    edge_prizes = np.asarray(edge_prizes, dtype=np.float32)
    if edge_index.shape[1] == 0 or len(node_prizes) == 0:
        return PCSTSolution(
            np.arange(len(node_prizes)),
            np.zeros(0, dtype=np.int64),
            float(node_prizes.sum()),
            float(edge_cost),
        )
    ranked = k_edges if k_edges is not None else int((edge_prizes > 0).any())
    cost = effective_edge_cost(edge_prizes, edge_cost, ranked)
    problem = build_pcst_problem(edge_index, node_prizes, edge_prizes, cost)
    return run_pcst(problem, edge_index, num_clusters)
