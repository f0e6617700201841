"""G-Retriever's settings: the paper's PCST prizes and costs (:class:`PCSTSettings`) and how the
candidate region of a large graph is grown (:class:`RegionSettings`).

Example
-------
>>> PCSTSettings().k_nodes, RegionSettings(hops=1).hops
(3, 1)
"""

from __future__ import annotations

from dataclasses import dataclass

from kgcore.settings import Settings, checked_settings

__all__ = ["PCSTSettings", "RegionSettings"]


@checked_settings(
    "PCST",
    limits={"k_nodes": (0, 10_000), "k_edges": (0, 10_000), "edge_cost": (0, 1e9),
            "num_clusters": (1, 1000)},
)  # fmt: skip
@dataclass(frozen=True)
class PCSTSettings(Settings):
    """The paper's retrieval settings (defaults: WebQSP's ``k_nodes=3, k_edges=5, C_e=0.5``).

    Attributes
    ----------
    k_nodes : int
        Nodes given prizes ``k..1`` by cosine similarity.
    k_edges : int
        Distinct edge-similarity ranks given prizes.
    edge_cost : float
        Cost ``C_e`` of an edge (lowered below the best edge prize).
    num_clusters : int
        Trees in the PCST forest (the paper: 1).
    """

    k_nodes: int = 3
    k_edges: int = 5
    edge_cost: float = 0.5
    num_clusters: int = 1


@checked_settings(
    "G-Retriever region",
    limits={"hops": (0, 8), "max_nodes": (1, 1_000_000), "neighbor_limit": (1, 1_000_000),
            "num_seeds": (1, 1000), "whole_graph_max_nodes": (0, 10_000_000),
            "max_region_texts": (2, 10_000_000)},
)  # fmt: skip
@dataclass(frozen=True)
class RegionSettings(Settings):
    """How the candidate region of a large graph is grown.

    Attributes
    ----------
    hops : int
        Hops from the seeds.
    max_nodes : int
        Size cap of the region (the new nodes most similar to the question are kept).
    neighbor_limit : int or None
        Neighbours read per node and hop (None: all).
    num_seeds : int
        Seeds taken by similarity when no topic entity is given.
    whole_graph_max_nodes : int
        Graphs with at most this many nodes are searched whole when no topic entity is given.
    max_region_texts : int
        Without an index (lazy retrieval), the most texts one question's region embeds: its
        distinct node names and edge texts (the question itself aside). A hop that would pass
        ``max_nodes`` keeps the new nodes with the best :func:`~kgcore.gretriever.region.
        lexical_scores` (shared words with the question, no embedding), and a region over this
        cap keeps the nodes nearest the topic entities, then the best by that lexical score
        (:func:`~kgcore.gretriever.region.cap_region_texts`). The default keeps a region of
        ``max_nodes`` nodes with MetaQA's 9 relation texts whole; a smaller cap answers a
        question about a hub (an actor in a hundred films) sooner. With an index (whole graph
        embedded) a region is scored by its vectors and only ``max_nodes`` applies.
    """

    hops: int = 2
    max_nodes: int = 2000
    neighbor_limit: int | None = None
    num_seeds: int = 3
    whole_graph_max_nodes: int = 5000
    max_region_texts: int = 2048
