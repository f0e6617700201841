"""Local Community Search (LCS): one FastToG step without the LLM.

Around the current community: sample the n-hop subgraph (:mod:`.sampling`), detect communities
under the size bound (:mod:`.detection`) among the nodes not yet visited, and keep the top-k
candidates by modularity among those adjacent to the current community (coarse pruning, 8 as in
the reference code; nothing is cut when there are 8 or fewer). A community of one node scores
about 0 and would sink below every real community, so a few slots go to single-node leaves,
one relation at a time: a year or a language that may be the answer is not always cut. The
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
[('All About Eve', 'J. L. Mankiewicz'), ('Drama', 'Gladiator')]
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import networkx as nx

from kgcore.community.detection import ALGORITHMS, detect_communities
from kgcore.community.modularity import community_modularity
from kgcore.community.sampling import NEIGHBORS_PER_HOP, SampledSubgraph, sample_neighborhood
from kgcore.exceptions import InvalidSettingError
from kgcore.graph.store import GraphStore
from kgcore.settings import Settings, checked_settings
from kgcore.types import Triple

#: Ranges of :class:`LCSConfig`'s numbers (inclusive); they bound one step's graph work.
LCS_LIMITS: dict[str, tuple[float, float]] = {
    "max_community_size": (1, 64),
    "radius": (0, 4),
    "decay": (0.0, 1.0),
    "max_subgraph_nodes": (1, 2000),
    "neighbors_per_hop": (1, 10_000),
    "max_neighbors_per_node": (1, 10_000),  # read per node, then sampled (Drama: 4,176)
    "hub_degree": (1, 10_000_000),
    "coarse_top_k": (1, 26),
}


@checked_settings("LCS", limits=LCS_LIMITS, choices={"algorithm": ALGORITHMS})
@dataclass(frozen=True)
class LCSConfig(Settings):
    """Settings of one Local Community Search step (``docs/fasttog.md`` has the table).

    Examples
    --------
    >>> LCSConfig(max_community_size=2).max_community_size
    2
    >>> LCSConfig(algorithm="nope")
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: LCS setting algorithm must be one of louvain, ...
    >>> LCSConfig(max_community_size=-5)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: LCS setting max_community_size=-5 is out of range: ...
    """

    max_community_size: int = 4
    algorithm: str = "louvain"
    radius: int = 2
    decay: float = 1.0
    max_subgraph_nodes: int = 160
    neighbors_per_hop: tuple[int, ...] = NEIGHBORS_PER_HOP
    max_neighbors_per_node: int | None = 5000
    hub_degree: int | None = 100
    coarse_top_k: int = 8

    def __post_init__(self) -> None:
        if not self.neighbors_per_hop:
            raise InvalidSettingError("LCS setting neighbors_per_hop needs at least one value")
        object.__setattr__(self, "neighbors_per_hop", tuple(self.neighbors_per_hop))


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
    leaf_slots: int = 0,
    shared_first: bool = False,
) -> list[Community]:
    """Keep the ``top_k`` communities by modularity among those adjacent to ``current``.

    ``graph`` is the graph the communities were detected on (modularity is computed there);
    ``triples`` are all sampled triples, used for adjacency to ``current`` and for each
    community's own and linking triples. Ties break on the sorted node names. When more than
    ``top_k`` are adjacent, up to ``leaf_slots`` of the kept ones are single-node communities,
    taken one linking relation at a time (see the module docstring).

    With ``shared_first`` (the step from several topic entities: "which film of [A] did [B]
    direct"), the communities linked to more than one node of ``current`` come first and are
    all kept (up to ``top_k``): what joins two topic entities is where such a question's answer
    lies.
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

    def rank(community: Community) -> tuple[int, float, tuple[str, ...]]:
        shared = _linked_nodes(community, current_set) if shared_first else 1
        return (-shared, -community.modularity, community.nodes)

    scored.sort(key=rank)
    if len(scored) <= top_k:
        return scored
    shared = [c for c in scored if shared_first and _linked_nodes(c, current_set) > 1]
    shared = shared[:top_k]
    others = [c for c in scored if c not in shared]
    reserved = shared + _leaves_by_relation(others, min(leaf_slots, top_k - len(shared)))
    rest = [c for c in scored if c not in reserved][: top_k - len(reserved)]
    return sorted(reserved + rest, key=rank)


def _linked_nodes(community: Community, current: set[str]) -> int:
    """How many nodes of ``current`` the community's linking triples touch."""
    return len({t.head if t.head in current else t.tail for t in community.links})


def _leaves_by_relation(ranked: list[Community], slots: int) -> list[Community]:
    """Up to ``slots`` single-node communities, the best of each linking relation in turn."""
    groups: dict[str, list[Community]] = {}
    for community in ranked:  # ranked: best first
        if len(community.nodes) == 1:
            relation = min(t.relation for t in community.links)
            groups.setdefault(relation, []).append(community)
    picked: list[Community] = []
    queues = [groups[r] for r in sorted(groups)]
    turn = 0
    while len(picked) < slots and any(turn < len(q) for q in queues):
        picked += [q[turn] for q in queues if turn < len(q)][: slots - len(picked)]
        turn += 1
    return picked


def local_community_search(
    store: GraphStore,
    current: Iterable[str],
    config: LCSConfig | None = None,
    exclude: Iterable[str] = (),
    seed: int = 0,
    shared_first: bool = False,
    leaf_slots: int = 0,
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
    shared_first : bool
        Rank first the communities linked to several nodes of ``current`` (see
        :func:`coarse_prune`); FastToG sets it for the step from several topic entities.
    leaf_slots : int
        Candidates kept for one-node communities when more than ``coarse_top_k`` are adjacent
        (:func:`coarse_prune`; FastToG gives its ``leaves.kept``).
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
        neighbors_per_hop=config.neighbors_per_hop,
        max_neighbors_per_node=config.max_neighbors_per_node,
        hub_degree=config.hub_degree,
        seed=seed,
    )
    skip = set(current) | set(exclude)
    graph = sub.to_networkx(exclude=skip)
    communities = detect_communities(
        graph, config.algorithm, max_size=config.max_community_size, seed=seed
    )
    candidates = coarse_prune(
        graph,
        communities,
        current,
        sub.triples,
        config.coarse_top_k,
        leaf_slots,
        shared_first=shared_first,
    )
    return LCSStep(
        candidates=candidates,
        subgraph_nodes=len(sub.nodes),
        subgraph_triples=len(sub.triples),
        communities_found=len(communities),
        seconds=time.perf_counter() - started,
        subgraph=sub,
    )
