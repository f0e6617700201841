"""Local Community Search (LCS): one FastToG step without the LLM.

Around the current community: sample the n-hop subgraph (:mod:`.sampling`), detect communities
under the size bound (:mod:`.detection`) among the nodes not yet visited, and keep the top-k
candidates by modularity among those adjacent to the current community (coarse pruning). The
LLM's fine pruning then chooses among the candidates.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([
...     ("Cleopatra", "directed_by", "J. L. Mankiewicz"),
...     ("All About Eve", "directed_by", "J. L. Mankiewicz"),
...     ("All About Eve", "has_genre", "Drama"), ("Cleopatra", "has_genre", "Drama"),
...     ("Gladiator", "has_genre", "Drama")])
>>> step = local_community_search(store, ["Cleopatra"], LCSConfig(max_community_size=2))
>>> [c.nodes for c in step.candidates]
[('Drama', 'Gladiator'), ('J. L. Mankiewicz',)]
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import networkx as nx

from kgcore.community.detection import detect_communities
from kgcore.community.modularity import community_modularity
from kgcore.community.sampling import SampledSubgraph, sample_neighborhood
from kgcore.graph.store import GraphStore
from kgcore.types import Triple


@dataclass(frozen=True)
class LCSConfig:
    """Settings of one Local Community Search step (defaults in the README's table)."""

    max_community_size: int = 4
    algorithm: str = "louvain"
    radius: int = 2
    decay: float = 0.5
    max_subgraph_nodes: int = 160
    max_neighbors_per_node: int = 32
    coarse_top_k: int = 5


@dataclass(frozen=True)
class Community:
    """A candidate community: its nodes, the triples inside it, and the triples that link it
    to the community it was reached from."""

    nodes: tuple[str, ...]
    triples: tuple[Triple, ...]
    links: tuple[Triple, ...]
    modularity: float = 0.0

    @property
    def all_triples(self) -> tuple[Triple, ...]:
        return self.links + self.triples


@dataclass
class LCSStep:
    """The outcome of one step: the candidates, best first, and what it cost."""

    candidates: list[Community]
    subgraph_nodes: int
    subgraph_triples: int
    communities_found: int
    seconds: float
    subgraph: SampledSubgraph | None = field(default=None, repr=False)


def coarse_prune(
    graph: nx.Graph,
    communities: Iterable[frozenset[str]],
    current: Iterable[str],
    triples: Iterable[Triple],
    top_k: int,
) -> list[Community]:
    """Keep the ``top_k`` communities by modularity among those adjacent to ``current``.

    ``graph`` is the graph the communities were detected on (modularity is computed there);
    ``triples`` are all sampled triples, used for adjacency to ``current`` and for each
    community's own and linking triples. Ties break on the sorted node names.
    """
    current_set = set(current)
    triples = list(triples)
    m = graph.size(weight="weight")
    node_to_community: dict[str, int] = {}
    communities = list(communities)
    for index, community in enumerate(communities):
        for node in community:
            node_to_community[node] = index
    links: dict[int, list[Triple]] = {}
    inside: dict[int, list[Triple]] = {}
    for triple in triples:
        head_c, tail_c = node_to_community.get(triple.head), node_to_community.get(triple.tail)
        if head_c is not None and head_c == tail_c:
            inside.setdefault(head_c, []).append(triple)
        elif head_c is not None and triple.tail in current_set:
            links.setdefault(head_c, []).append(triple)
        elif tail_c is not None and triple.head in current_set:
            links.setdefault(tail_c, []).append(triple)
    scored = [
        Community(
            nodes=tuple(sorted(communities[i])),
            triples=tuple(sorted(inside.get(i, ()))),
            links=tuple(sorted(links[i])),
            modularity=community_modularity(graph, communities[i], total_weight=m),
        )
        for i in links
    ]
    scored.sort(key=lambda c: (-c.modularity, c.nodes))
    return scored[:top_k]


def local_community_search(
    store: GraphStore,
    current: Iterable[str],
    config: LCSConfig | None = None,
    exclude: Iterable[str] = (),
    seed: int = 0,
) -> LCSStep:
    """One LCS step around the ``current`` community.

    Parameters
    ----------
    store : GraphStore
        The knowledge graph.
    current : iterable of str
        Nodes of the current community.
    config : LCSConfig
        Sampling, detection and pruning settings.
    exclude : iterable of str
        Nodes already used (on a chain or in the history set); no candidate contains them.
    seed : int
        Seeds sampling and detection.
    """
    config = config or LCSConfig()
    started = time.perf_counter()
    current = list(current)
    sub = sample_neighborhood(
        store,
        current,
        radius=config.radius,
        decay=config.decay,
        max_nodes=config.max_subgraph_nodes,
        max_neighbors_per_node=config.max_neighbors_per_node,
        seed=seed,
    )
    skip = set(current) | set(exclude)
    graph = sub.to_networkx(exclude=skip)
    communities = detect_communities(
        graph, config.algorithm, max_size=config.max_community_size, seed=seed
    )
    candidates = coarse_prune(graph, communities, current, sub.triples, config.coarse_top_k)
    return LCSStep(
        candidates=candidates,
        subgraph_nodes=len(sub.nodes),
        subgraph_triples=len(sub.triples),
        communities_found=len(communities),
        seconds=time.perf_counter() - started,
        subgraph=sub,
    )
