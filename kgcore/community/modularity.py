"""Modularity of one community, and the coarse pruning that ranks candidates by it.

For a community c of an undirected weighted graph with total edge weight m, FastToG scores
``Q(c) = sum_in - sum_tot**2 / (2m)``, where ``sum_in`` counts the weight inside c from both ends
(twice the internal weight) and ``sum_tot`` is the total degree of c's nodes. This module returns
that value divided by ``2m``, so the scores of a partition add up to networkx's modularity; the
ranking is the same.

Example
-------
>>> import networkx as nx
>>> graph = nx.barbell_graph(3, 0)
>>> parts = [{0, 1, 2}, {3, 4, 5}]
>>> round(sum(community_modularity(graph, c) for c in parts), 6) == round(
...     nx.community.modularity(graph, parts), 6)
True
"""

from __future__ import annotations

from collections.abc import Collection, Hashable

import networkx as nx


def community_modularity(
    graph: nx.Graph,
    community: Collection[Hashable],
    weight: str = "weight",
    total_weight: float | None = None,
) -> float:
    """Q(c) of one community, normalised by 2m (see the module docstring)."""
    m = total_weight if total_weight is not None else graph.size(weight=weight)
    if m == 0:
        return 0.0
    members = set(community)
    sum_in = 0.0
    sum_tot = 0.0
    for node in members:
        for neighbor, data in graph[node].items():
            w = data.get(weight, 1.0)
            sum_tot += w
            if neighbor in members:
                sum_in += w if neighbor != node else 2 * w
    return (sum_in - sum_tot**2 / (2 * m)) / (2 * m)
