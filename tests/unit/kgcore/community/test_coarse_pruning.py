from __future__ import annotations

import networkx as nx
import pytest

from kgcore.community import LCSConfig, coarse_prune, community_modularity, local_community_search
from kgcore.graph import InMemoryGraphStore
from kgcore.types import Triple

# The current community {q}; three candidate groups:
#   dense triangle {a, b, c}, touching q through a;
#   a pair {d, e}, touching q through d;
#   a triangle {x, y, z} that does not touch q (two hops away, through c).
TRIPLES = [
    Triple("q", "r", "a"),
    Triple("a", "r", "b"),
    Triple("b", "r", "c"),
    Triple("a", "r", "c"),
    Triple("q", "r", "d"),
    Triple("d", "r", "e"),
    Triple("c", "r", "x"),
    Triple("x", "r", "y"),
    Triple("y", "r", "z"),
    Triple("x", "r", "z"),
]
COMMUNITIES = [frozenset("abc"), frozenset("de"), frozenset("xyz")]


def detection_graph() -> nx.Graph:
    graph = nx.Graph()
    graph.add_edges_from(
        (t.head, t.tail, {"weight": 1.0}) for t in TRIPLES if "q" not in (t.head, t.tail)
    )
    return graph


def test_only_adjacent_communities_ranked_by_modularity() -> None:
    graph = detection_graph()
    kept = coarse_prune(graph, COMMUNITIES, ["q"], TRIPLES, top_k=5)
    assert [c.nodes for c in kept] == [("a", "b", "c"), ("d", "e")]  # xyz is not adjacent
    assert kept[0].modularity == pytest.approx(community_modularity(graph, "abc"))
    assert kept[0].modularity > kept[1].modularity
    assert kept[0].links == (Triple("q", "r", "a"),)
    assert kept[0].triples == (Triple("a", "r", "b"), Triple("a", "r", "c"), Triple("b", "r", "c"))


def test_top_k_cuts_the_ranking() -> None:
    kept = coarse_prune(detection_graph(), COMMUNITIES, ["q"], TRIPLES, top_k=1)
    assert [c.nodes for c in kept] == [("a", "b", "c")]


def test_search_never_offers_current_or_excluded_nodes() -> None:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    step = local_community_search(
        store, ["q"], LCSConfig(max_community_size=3, decay=1.0), exclude={"d"}, seed=0
    )
    offered = {n for c in step.candidates for n in c.nodes}
    assert "q" not in offered and "d" not in offered
    assert all(len(c.nodes) <= 3 and c.links for c in step.candidates)


def _star_with_leaves() -> tuple[nx.Graph, list[frozenset[str]], list[Triple]]:
    """Current {q}; 9 pair communities (m_i, p_i) and 3 leaves: two tags and a year."""
    triples = []
    for i in range(9):
        triples += [Triple("q", "starred_actors", f"m{i}"), Triple(f"m{i}", "r", f"p{i}")]
    triples += [
        Triple("q", "has_tags", "tag1"),
        Triple("q", "has_tags", "tag2"),
        Triple("q", "release_year", "1963"),
    ]
    graph = nx.Graph()
    graph.add_nodes_from(["tag1", "tag2", "1963"])
    graph.add_edges_from((f"m{i}", f"p{i}", {"weight": 1.0}) for i in range(9))
    communities = [frozenset({f"m{i}", f"p{i}"}) for i in range(9)]
    communities += [frozenset({"tag1"}), frozenset({"tag2"}), frozenset({"1963"})]
    return graph, communities, triples


def test_eight_or_fewer_candidates_are_all_kept() -> None:
    graph, communities, triples = _star_with_leaves()
    kept = coarse_prune(graph, communities[:8], ["q"], triples, top_k=8, leaf_slots=2)
    assert len(kept) == 8


def test_leaves_are_not_always_cut_and_slots_go_one_relation_at_a_time() -> None:
    graph, communities, triples = _star_with_leaves()
    without = coarse_prune(graph, communities, ["q"], triples, top_k=8)
    assert all(len(c.nodes) == 2 for c in without)  # modularity alone cuts every leaf
    kept = coarse_prune(graph, communities, ["q"], triples, top_k=8, leaf_slots=2)
    leaves = [c.nodes for c in kept if len(c.nodes) == 1]
    assert len(kept) == 8
    # One tag and the year: the year is not crowded out by a second tag.
    assert leaves in ([("1963",), ("tag1",)], [("tag1",), ("1963",)])


def test_shared_first_keeps_and_ranks_first_what_joins_the_current_nodes() -> None:
    # From two topic entities {q, p}: the pair {d, e} is linked to both, the triangle only to q.
    triples = [*TRIPLES, Triple("p", "r", "e")]
    graph = detection_graph()
    plain = coarse_prune(graph, COMMUNITIES, ["q", "p"], triples, top_k=1)
    assert [c.nodes for c in plain] == [("a", "b", "c")]  # by modularity alone
    shared = coarse_prune(graph, COMMUNITIES, ["q", "p"], triples, top_k=1, shared_first=True)
    assert [c.nodes for c in shared] == [("d", "e")]
    both = coarse_prune(graph, COMMUNITIES, ["q", "p"], triples, top_k=5, shared_first=True)
    assert [c.nodes for c in both] == [("d", "e"), ("a", "b", "c")]
    # With one current node nothing changes.
    one = coarse_prune(graph, COMMUNITIES, ["q"], TRIPLES, top_k=5, shared_first=True)
    assert [c.nodes for c in one] == [("a", "b", "c"), ("d", "e")]
