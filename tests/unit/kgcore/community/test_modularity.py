from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgcore.community import community_modularity, detect_communities


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 30), p=st.floats(0.1, 0.7), seed=st.integers(0, 1000), k=st.integers(1, 5))
def test_partition_scores_add_up_to_networkx_modularity(
    n: int, p: float, seed: int, k: int
) -> None:
    graph = nx.gnp_random_graph(n, p, seed=seed)
    for u, v in graph.edges:
        graph[u][v]["weight"] = 1.0 + (u * v) % 3
    if graph.number_of_edges() == 0:
        return
    parts = [set(range(i, n, k)) for i in range(k) if set(range(i, n, k))]
    ours = sum(community_modularity(graph, c) for c in parts)
    assert ours == pytest.approx(nx.community.modularity(graph, parts, weight="weight"))


def test_detected_communities_match_networkx_too() -> None:
    graph = nx.karate_club_graph()
    parts = detect_communities(graph, "louvain", max_size=8, seed=0)
    ours = sum(community_modularity(graph, c) for c in parts)
    assert ours == pytest.approx(nx.community.modularity(graph, parts))


def test_one_community_formula() -> None:
    # Two triangles joined by one edge: m = 7, each triangle: sum_in = 6, sum_tot = 7.
    graph = nx.barbell_graph(3, 0)
    expected = (6 - 7**2 / 14) / 14
    assert community_modularity(graph, {0, 1, 2}) == pytest.approx(expected)
    assert community_modularity(nx.empty_graph(3), {0}) == 0.0
