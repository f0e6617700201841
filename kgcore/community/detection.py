"""Community detection under a maximum community size M.

Each algorithm is exposed as a generator of partitions from coarsest to finest
(:func:`iter_partitions`), in the manner of networkx's ``louvain_partitions`` and
``girvan_newman``. :func:`detect_communities` walks that sequence to the first partition whose
communities all have at most ``max_size`` nodes: for Louvain that walks back through its levels,
for Girvan-Newman forward through its splits, for the hierarchical method through dendrogram
cuts. When even the finest partition has an oversized community (a star whose hub and leaves
Louvain keeps together), that community is split again by the same algorithm on its own
subgraph, and as a last resort into breadth-first chunks of at most ``max_size`` nodes.

Algorithms: ``louvain`` (networkx), ``leiden`` (graspologic's native Leiden: its hierarchical
Leiden splits clusters above ``max_size`` itself), ``girvan_newman`` (networkx), ``hierarchical``
(average-linkage agglomerative clustering on shortest-path distances, scipy), ``spectral``
(spectral embedding + k-means, scikit-learn) and ``random`` (the paper's ablation).

Example
-------
>>> import networkx as nx
>>> graph = nx.barbell_graph(4, 0)
>>> parts = detect_communities(graph, "louvain", max_size=4, seed=1)
>>> sorted(sorted(c) for c in parts)
[[0, 1, 2, 3], [4, 5, 6, 7]]
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Iterable, Iterator
from typing import Any

import networkx as nx
import numpy as np

from kgcore.exceptions import ConfigurationError, InvalidSettingError

Partition = list[frozenset[Any]]
ALGORITHMS = ("louvain", "leiden", "girvan_newman", "hierarchical", "spectral", "random")


def _canonical(partition: Any) -> Partition:
    """Communities as frozensets, largest first then by smallest member, for a stable order."""
    parts = [frozenset(c) for c in partition if len(c)]
    return sorted(parts, key=lambda c: (-len(c), min(map(str, c))))


def canonical_subgraph(graph: nx.Graph, nodes: Iterable[Any]) -> nx.Graph:
    """The subgraph induced by ``nodes``, built in sorted node and edge order.

    ``graph.subgraph(a_set)`` iterates the set, i.e. in hash order, which changes with
    ``PYTHONHASHSEED``; seeded algorithms (Louvain shuffles ``list(graph.nodes)``) would then
    partition differently in another process. networkx has no ordered induced subgraph, hence
    this small builder.

    Example
    -------
    >>> g = nx.path_graph(["c", "a", "b", "d"])
    >>> list(canonical_subgraph(g, {"b", "a", "c"}).nodes)
    ['a', 'b', 'c']
    """
    members = set(nodes)
    order = sorted(members, key=str)
    sub = nx.Graph()
    sub.add_nodes_from((node, graph.nodes[node]) for node in order)
    for node in order:
        for neighbor in sorted((v for v in graph[node] if v in members), key=str):
            if not sub.has_edge(node, neighbor):
                sub.add_edge(node, neighbor, **graph[node][neighbor])
    return sub


def _louvain(graph: nx.Graph, seed: int, max_size: int) -> Iterator[Partition]:
    levels = list(nx.community.louvain_partitions(graph, weight="weight", seed=seed))
    for level in reversed(levels):  # coarsest first
        yield _canonical(level)


def _leiden(graph: nx.Graph, seed: int, max_size: int) -> Iterator[Partition]:
    # graspologic's native core: hierarchical Leiden re-clusters any cluster above max_size.
    # (The graspologic Python package pins numpy<2 and pulls gensim/umap, so we use its core.)
    import graspologic_native as gn

    index = {node: str(i) for i, node in enumerate(graph.nodes)}
    back = {v: k for k, v in index.items()}
    edges = [
        (index[u], index[v], float(d.get("weight", 1.0))) for u, v, d in graph.edges(data=True)
    ]
    isolated = [n for n in graph.nodes if graph.degree(n) == 0]
    if not edges:
        yield _canonical([{n} for n in graph.nodes])
        return
    clusters = gn.hierarchical_leiden(edges, max_cluster_size=max_size, seed=seed)
    deepest = max(c.level for c in clusters)
    membership: dict[str, int] = {}
    for level in range(deepest + 1):
        for entry in clusters:
            if entry.level == level:
                membership[entry.node] = entry.cluster
        groups: dict[int, set[Any]] = {}
        for node, cluster in membership.items():
            groups.setdefault(cluster, set()).add(back[node])
        yield _canonical(list(groups.values()) + [{n} for n in isolated])


def _girvan_newman(graph: nx.Graph, seed: int, max_size: int) -> Iterator[Partition]:
    yield _canonical(nx.connected_components(graph))
    if graph.number_of_edges():
        for split in nx.community.girvan_newman(graph):
            yield _canonical(split)


def _hierarchical(graph: nx.Graph, seed: int, max_size: int) -> Iterator[Partition]:
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    nodes = list(graph.nodes)
    n = len(nodes)
    if n <= 1:
        yield _canonical([set(nodes)])
        return
    far = float(n + 1)  # distance between disconnected nodes
    distance = np.full((n, n), far)
    position = {node: i for i, node in enumerate(nodes)}
    for source, lengths in nx.all_pairs_shortest_path_length(graph):
        for target, length in lengths.items():
            distance[position[source], position[target]] = length
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method="average")
    for k in range(1, n + 1):  # dendrogram cuts, coarse to fine
        labels = fcluster(tree, t=k, criterion="maxclust")
        groups: dict[int, set[Any]] = {}
        for node, label in zip(nodes, labels, strict=True):
            groups.setdefault(int(label), set()).add(node)
        yield _canonical(groups.values())


def _spectral(graph: nx.Graph, seed: int, max_size: int) -> Iterator[Partition]:
    """Bisecting spectral clustering: from the connected components, split the largest
    oversized cluster in two by 2-means on its spectral embedding, one split per partition.

    (Bisecting, rather than k-means for every k, keeps each step a cheap 2-means fit.)
    """
    from scipy.cluster.vq import kmeans2
    from sklearn.manifold import spectral_embedding

    nodes = list(graph.nodes)
    n = len(nodes)
    if n <= max_size or graph.number_of_edges() == 0:
        yield _canonical([set(nodes)] if n <= max_size else [{v} for v in nodes])
        return
    # Dense: LCS subgraphs have at most a few hundred nodes.
    adjacency = nx.to_numpy_array(graph, nodelist=nodes, weight="weight")
    dims = min(n - 1, max(2, math.ceil(n / max_size)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "graph is not fully connected": components still split
        embedding = spectral_embedding(
            adjacency, n_components=dims, random_state=seed, drop_first=False
        )
    rng = np.random.default_rng(seed)
    position = {node: i for i, node in enumerate(nodes)}
    clusters = [sorted(position[v] for v in c) for c in nx.connected_components(graph)]
    stuck: set[tuple[int, ...]] = set()  # clusters 2-means cannot divide (identical points)

    def partition() -> Partition:
        return _canonical([{nodes[i] for i in c} for c in clusters])

    yield partition()
    while True:
        oversized = [c for c in clusters if len(c) > max_size and tuple(c) not in stuck]
        if not oversized:
            return
        target = max(oversized, key=lambda c: (len(c), -c[0]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "one of the clusters is empty"
            _, labels = kmeans2(embedding[target], 2, minit="++", rng=rng)
        left = [i for i, label in zip(target, labels, strict=True) if label == 0]
        right = [i for i, label in zip(target, labels, strict=True) if label != 0]
        if not left or not right:
            stuck.add(tuple(target))
            continue
        clusters.remove(target)
        clusters += [left, right]
        yield partition()


def _random(graph: nx.Graph, seed: int, max_size: int) -> Iterator[Partition]:
    nodes = sorted(graph.nodes, key=str)
    order = np.random.default_rng(seed).permutation(len(nodes))
    shuffled = [nodes[i] for i in order]
    yield _canonical(shuffled[i : i + max_size] for i in range(0, len(shuffled), max_size))


_GENERATORS = {
    "louvain": _louvain,
    "leiden": _leiden,
    "girvan_newman": _girvan_newman,
    "hierarchical": _hierarchical,
    "spectral": _spectral,
    "random": _random,
}


def iter_partitions(
    graph: nx.Graph, algorithm: str = "louvain", seed: int = 0, max_size: int = 4
) -> Iterator[Partition]:
    """Yield the algorithm's partitions of ``graph``, coarsest first.

    Parameters
    ----------
    graph : networkx.Graph
        Undirected graph; edge attribute ``weight`` is used where the algorithm supports it.
    algorithm : str
        One of :data:`ALGORITHMS`.
    seed : int
        Seeds every random choice of the algorithm.
    max_size : int
        Only Leiden reads it (its hierarchical variant splits larger clusters itself).
    """
    try:
        generator = _GENERATORS[algorithm]
    except KeyError:
        raise ConfigurationError(
            f"unknown community algorithm {algorithm!r}; expected one of {', '.join(ALGORITHMS)}"
        ) from None
    if graph.number_of_nodes() == 0:
        return
    yield from generator(graph, seed, max_size)


def _bfs_chunks(graph: nx.Graph, community: frozenset[Any], max_size: int) -> Partition:
    """Split a community into connected-first chunks of at most ``max_size`` nodes.

    The last resort for a community no algorithm divides (a star): breadth-first order from the
    highest-degree node keeps each chunk as connected as the order allows.
    """
    sub = canonical_subgraph(graph, community)
    order: list[Hashable] = []
    seen: set[Hashable] = set()
    for start in sorted(sub.nodes, key=lambda v: (-sub.degree(v), str(v))):
        if start in seen:
            continue
        for node in [start, *(v for _, v in nx.bfs_edges(sub, start, sort_neighbors=sorted))]:
            if node not in seen:
                seen.add(node)
                order.append(node)
    return [frozenset(order[i : i + max_size]) for i in range(0, len(order), max_size)]


def _is_star(graph: nx.Graph) -> bool:
    """A hub joined to every other node, with no other edges."""
    n = graph.number_of_nodes()
    return n > 2 and graph.number_of_edges() == n - 1 and max(d for _, d in graph.degree) == n - 1


def detect_communities(
    graph: nx.Graph, algorithm: str = "louvain", max_size: int = 4, seed: int = 0
) -> Partition:
    """Communities of ``graph`` with at most ``max_size`` nodes each.

    Parameters
    ----------
    graph : networkx.Graph
        Undirected graph to partition.
    algorithm : str
        One of :data:`ALGORITHMS`.
    max_size : int
        M, the maximum community size (>= 1).
    seed : int
        Seeds the algorithm.

    Returns
    -------
    list of frozenset
        A partition of the nodes; every community has at most ``max_size`` nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> parts = detect_communities(nx.star_graph(6), "louvain", max_size=3, seed=0)
    >>> max(len(c) for c in parts) <= 3
    True
    """
    if max_size < 1:
        raise InvalidSettingError("max_size must be >= 1")
    finest: Partition = []
    for partition in iter_partitions(graph, algorithm, seed, max_size):
        finest = partition
        if all(len(c) <= max_size for c in partition):
            return partition
    result: Partition = []
    for community in finest:
        if len(community) <= max_size:
            result.append(community)
            continue
        sub = canonical_subgraph(graph, community)
        refined = None
        # Rerun only on a strictly smaller graph that is not a pure star: no modularity gain
        # can divide a hub and its leaves (on MetaQA nearly every oversized community is one).
        if len(community) < graph.number_of_nodes() and not _is_star(sub):
            refined = detect_communities(sub, algorithm, max_size, seed)
        result.extend(refined if refined is not None else _bfs_chunks(graph, community, max_size))
    return _canonical(result)
