"""What a G-Retriever search returns: the subgraph, why it was chosen, and its text.

Example
-------
>>> from kgcore.types import Triple
>>> result = GRetrieverResult(
...     question="who directed Cleopatra", node_ids=(0, 1),
...     node_texts=("Cleopatra", "Joseph L. Mankiewicz"),
...     edge_ids=(0,), edges=(Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),),
...     edge_endpoints=((0, 1),), node_prizes=(3.0, 0.0), edge_prizes=(5.0,), objective=7.5,
...     edge_cost=0.5, searched_nodes=2, searched_edges=1)
>>> print(result.textualize("triples"))
(Cleopatra, directed_by, Joseph L. Mankiewicz)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgcore.gretriever.textgraph import TextualGraph
from kgcore.gretriever.textualize import (
    TextFormat,
    check_text_format,
    textualize_paper,
    textualize_triples,
)
from kgcore.types import Triple


@dataclass(frozen=True)
class GRetrieverResult:
    """The Prize-Collecting Steiner Tree chosen for a question.

    Attributes
    ----------
    question : str
        The question.
    node_ids, node_texts : tuple
        The selected nodes: ids in the searched graph (the whole graph or the candidate region)
        and their texts.
    edge_ids, edges, edge_endpoints : tuple
        The selected edges: ids in the searched graph, as triples, and as ``(src, dst)`` node ids.
    node_prizes, edge_prizes : tuple of float
        The prize of each selected node and edge (0 for connectors PCST bought).
    objective : float
        Net prize of the PCST tree: collected prizes minus paid edge costs.
    edge_cost : float
        The edge cost ``C_e`` actually used.
    searched_nodes, searched_edges : int
        Size of the graph PCST searched (the candidate region on a large graph).
    seeds : tuple of str
        The nodes the candidate region grew from (empty for a whole-graph search).
    searched_graph : TextualGraph, optional
        The graph PCST searched (the whole graph or the candidate region), for comparison.
    """

    question: str
    node_ids: tuple[int, ...]
    node_texts: tuple[str, ...]
    edge_ids: tuple[int, ...]
    edges: tuple[Triple, ...]
    edge_endpoints: tuple[tuple[int, int], ...]
    node_prizes: tuple[float, ...]
    edge_prizes: tuple[float, ...]
    objective: float
    edge_cost: float
    searched_nodes: int
    searched_edges: int
    seeds: tuple[str, ...] = field(default=())
    searched_graph: TextualGraph | None = field(default=None, repr=False, compare=False)

    @property
    def num_nodes(self) -> int:
        """Number of selected nodes."""
        return len(self.node_ids)

    @property
    def num_edges(self) -> int:
        """Number of selected edges."""
        return len(self.edge_ids)

    def textualize(self, fmt: TextFormat = "paper") -> str:
        """The subgraph as text: the paper's node/edge tables, or one triple per line."""
        check_text_format(fmt)
        if fmt == "triples":
            return textualize_triples(self.edges)
        return textualize_paper(
            zip(self.node_ids, self.node_texts, strict=True),
            ((s, t.relation, d) for (s, d), t in zip(self.edge_endpoints, self.edges, strict=True)),
        )

    def to_metadata(self) -> dict[str, object]:
        """A JSON-friendly summary: ids, triples, prizes and the objective."""
        return {
            "node_ids": list(self.node_ids),
            "nodes": list(self.node_texts),
            "edge_ids": list(self.edge_ids),
            "triples": [list(t) for t in self.edges],
            "node_prizes": list(self.node_prizes),
            "edge_prizes": list(self.edge_prizes),
            "objective": self.objective,
            "edge_cost": self.edge_cost,
            "searched_nodes": self.searched_nodes,
            "searched_edges": self.searched_edges,
            "seeds": list(self.seeds),
        }
