"""PCST on hand-made graphs whose optimal tree is known."""

from __future__ import annotations

import numpy as np
import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.gretriever.pcst import build_pcst_problem, effective_edge_cost, solve_pcst


def edges(*pairs: tuple[int, int]) -> np.ndarray:
    return np.array(pairs, dtype=np.int64).T.reshape(2, -1)


def test_a_zero_prize_bridge_node_is_kept_to_join_two_prizes() -> None:
    # 0 (prize 3) - 1 (no prize) - 2 (prize 2), and a dangling 3 hanging off the bridge.
    graph = edges((0, 1), (1, 2), (1, 3))
    prizes = np.array([3.0, 0.0, 2.0, 0.0], dtype=np.float32)
    solution = solve_pcst(graph, prizes, np.zeros(3, np.float32), edge_cost=0.5, k_edges=0)
    assert solution.node_ids.tolist() == [0, 1, 2]
    assert solution.edge_ids.tolist() == [0, 1]
    assert solution.objective == pytest.approx(5.0 - 1.0)


def test_a_high_prize_edge_becomes_a_virtual_node() -> None:
    graph = edges((0, 1), (1, 2), (2, 3))
    edge_prizes = np.array([0.0, 0.0, 2.0], dtype=np.float32)
    problem = build_pcst_problem(graph, np.zeros(4, np.float32), edge_prizes, 0.5)
    # Real edges 0 and 1 keep cost C_e - P; edge 2 is virtual node 4 with prize P - C_e.
    assert problem.real_edge_ids.tolist() == [0, 1]
    assert problem.virtual_edge_ids.tolist() == [2]
    assert problem.edges.tolist() == [[0, 1], [1, 2], [2, 4], [4, 3]]
    assert problem.costs.tolist() == [0.5, 0.5, 0.0, 0.0]
    assert problem.prizes.tolist() == [0.0, 0.0, 0.0, 0.0, 1.5]

    solution = solve_pcst(graph, np.zeros(4, np.float32), edge_prizes, 0.5, k_edges=1)
    assert solution.edge_ids.tolist() == [2]
    assert solution.node_ids.tolist() == [2, 3]
    assert solution.objective == pytest.approx(1.5)


def test_a_low_prize_edge_gets_a_reduced_cost() -> None:
    graph = edges((0, 1))
    problem = build_pcst_problem(graph, np.zeros(2, np.float32), np.array([0.2], np.float32), 0.5)
    assert problem.virtual_edge_ids.size == 0
    assert problem.costs.tolist() == [pytest.approx(0.3)]


def test_a_disconnected_prize_is_ignored_with_one_cluster() -> None:
    graph = edges((0, 1), (2, 3))
    prizes = np.array([3.0, 2.0, 1.0, 0.0], dtype=np.float32)
    solution = solve_pcst(graph, prizes, np.zeros(2, np.float32), edge_cost=0.5, k_edges=0)
    assert solution.node_ids.tolist() == [0, 1]
    assert solution.edge_ids.tolist() == [0]


def test_edge_cost_is_lowered_so_the_best_edge_can_be_bought() -> None:
    prizes = np.array([0.1, 0.05], dtype=np.float32)
    assert effective_edge_cost(prizes, 0.5, k_edges=5) == pytest.approx(0.1 * 0.995)
    assert effective_edge_cost(prizes, 0.5, k_edges=0) == 0.5


def test_a_graph_without_edges_keeps_its_nodes() -> None:
    solution = solve_pcst(np.zeros((2, 0)), np.array([1.0, 0.0], np.float32), np.zeros(0), 0.5)
    assert solution.node_ids.tolist() == [0, 1]
    assert solution.edge_ids.size == 0


def test_a_large_graph_gets_one_virtual_node_per_rich_edge() -> None:
    # 200k edges, 50 of them prized above the cost: built with array operations only.
    rng = np.random.default_rng(0)
    graph = rng.integers(0, 50_000, size=(2, 200_000))
    prizes = np.zeros(200_000, np.float32)
    prizes[rng.choice(200_000, 50, replace=False)] = 2.0
    problem = build_pcst_problem(graph, np.zeros(50_000, np.float32), prizes, 0.5)
    assert len(problem.virtual_edge_ids) == 50
    assert problem.edges.shape == (200_000 - 50 + 100, 2)


def test_negative_edge_cost_is_rejected() -> None:
    with pytest.raises(ConfigurationError):
        build_pcst_problem(edges((0, 1)), np.zeros(2, np.float32), np.zeros(1, np.float32), -1.0)
