from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgcore.community.detection import ALGORITHMS, detect_communities, iter_partitions


def assert_partition(graph: nx.Graph, parts: list[frozenset], max_size: int) -> None:
    members = [n for c in parts for n in c]
    assert sorted(members, key=str) == sorted(graph.nodes, key=str)  # each node exactly once
    assert all(1 <= len(c) <= max_size for c in parts)


@st.composite
def graphs(draw: st.DrawFn) -> nx.Graph:
    n = draw(st.integers(min_value=1, max_value=24))
    p = draw(st.floats(min_value=0.05, max_value=0.6))
    seed = draw(st.integers(min_value=0, max_value=10_000))
    return nx.gnp_random_graph(n, p, seed=seed)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=graphs(), max_size=st.integers(min_value=1, max_value=6), seed=st.integers(0, 50))
def test_size_bound_always_holds(algorithm: str, graph: nx.Graph, max_size: int, seed: int) -> None:
    assert_partition(graph, detect_communities(graph, algorithm, max_size, seed), max_size)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_same_seed_same_partition(algorithm: str) -> None:
    graph = nx.les_miserables_graph()
    first = detect_communities(graph, algorithm, max_size=5, seed=3)
    assert first == detect_communities(graph, algorithm, max_size=5, seed=3)
    assert_partition(graph, first, 5)


def test_louvain_walks_back_to_the_level_within_the_bound() -> None:
    # Ring of 16 triangles: Louvain's first level finds the triangles, the next merges pairs.
    graph = nx.ring_of_cliques(16, 3)
    levels = list(iter_partitions(graph, "louvain", seed=0))
    assert len(levels) == 2
    assert max(len(c) for c in levels[0]) == 6  # coarsest level: over the bound
    assert detect_communities(graph, "louvain", max_size=6, seed=0) == levels[0]
    parts = detect_communities(graph, "louvain", max_size=3, seed=0)
    cliques = {frozenset(range(i, i + 3)) for i in range(0, 48, 3)}
    assert set(parts) == cliques


def test_star_is_split_into_bounded_chunks() -> None:
    graph = nx.star_graph(9)  # Louvain keeps hub and leaves together
    parts = detect_communities(graph, "louvain", max_size=4, seed=0)
    assert_partition(graph, parts, 4)
    assert 0 in parts[0]  # BFS chunks start from the hub


def test_girvan_newman_splits_the_barbell_bridge() -> None:
    parts = detect_communities(nx.barbell_graph(4, 0), "girvan_newman", max_size=4)
    assert sorted(sorted(c) for c in parts) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_unknown_algorithm_and_bad_size() -> None:
    with pytest.raises(ValueError, match="unknown community algorithm 'kmeans'"):
        detect_communities(nx.path_graph(3), "kmeans")
    with pytest.raises(ValueError, match="max_size"):
        detect_communities(nx.path_graph(3), "louvain", max_size=0)


def test_empty_graph_has_no_communities() -> None:
    assert detect_communities(nx.Graph(), "louvain") == []


@pytest.mark.parametrize("algorithm", ["louvain", "leiden", "spectral", "hierarchical"])
def test_two_cliques_joined_by_one_edge_are_found(algorithm: str) -> None:
    parts = detect_communities(nx.barbell_graph(5, 0), algorithm, max_size=5, seed=0)
    assert sorted(sorted(c) for c in parts) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
