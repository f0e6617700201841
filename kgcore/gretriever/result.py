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
(Cleopatra, directed by, Joseph L. Mankiewicz)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from kgcore.exceptions import InvalidSettingError
from kgcore.gretriever.textgraph import TextualGraph
from kgcore.gretriever.textualize import (
    TextFormat,
    check_text_format,
    textualize_paper,
    textualize_triples,
)
from kgcore.text.relations import Verbalizer, verbalize_relation
from kgcore.types import Triple, qualified, qualifier_of

#: How a subgraph's edges are ordered in its text: the graph's (PCST's, the paper's) order, or
#: the most relevant first (:meth:`GRetrieverResult.edge_relevance`).
EdgeOrder = Literal["graph", "relevance"]
EDGE_ORDERS: tuple[str, ...] = ("graph", "relevance")


def with_note(relation: str, note: str) -> str:
    """An edge's text in the paper's table: the relation, then its note in brackets."""
    return f"{relation} ({note})" if note else relation


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
    planned_answers : tuple of str
        The nodes the question's best planned relation path reaches
        (:mod:`~kgcore.gretriever.planned`; empty without path planning).
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
    planned_answers: tuple[str, ...] = field(default=())
    searched_graph: TextualGraph | None = field(default=None, repr=False, compare=False)

    def with_planned(self, answers: Sequence[str]) -> GRetrieverResult:
        """This result with ``answers``, those of the question's planned relation path."""
        return replace(self, planned_answers=tuple(answers)) if answers else self

    @property
    def num_nodes(self) -> int:
        """Number of selected nodes."""
        return len(self.node_ids)

    @property
    def num_edges(self) -> int:
        """Number of selected edges."""
        return len(self.edge_ids)

    def edge_relevance(self) -> list[float]:
        """Each selected edge's prize plus the prizes of its two end nodes.

        Connectors PCST bought to join prized parts score 0 unless an end node is prized.
        """
        node_prize = dict(zip(self.node_ids, self.node_prizes, strict=True))
        return [
            prize + node_prize.get(src, 0.0) + node_prize.get(dst, 0.0)
            for prize, (src, dst) in zip(self.edge_prizes, self.edge_endpoints, strict=True)
        ]

    def textualize(
        self,
        fmt: TextFormat = "paper",
        max_edges: int | None = None,
        verbalize: Verbalizer = verbalize_relation,
        order: EdgeOrder = "graph",
    ) -> str:
        """The subgraph as text: the paper's node/edge tables, or one triple per line.

        Relations are written through ``verbalize``
        (:func:`~kgcore.text.relations.verbalize_relation`: ``people.person.place_of_birth``
        as "place of birth"; phrases such as ExplaGraphs' "capable of" stay as they are).

        ``max_edges`` keeps only that many edges, the most relevant first (see
        :meth:`edge_relevance`; ties keep PCST's order), and the nodes they touch; this is how
        a prompt is fitted to a model's context window (G-Retriever's code truncates the
        graph text to ``max_txt_len`` tokens instead, wherever the cut falls). ``order``: the
        edges in the graph's order (``"graph"``, the paper's), or the most relevant first
        (``"relevance"``).

        Example
        -------
        >>> from kgcore.types import Triple
        >>> result = GRetrieverResult(
        ...     question="q", node_ids=(0, 1, 2), node_texts=("a", "b", "c"), edge_ids=(0, 1),
        ...     edges=(Triple("a", "r", "b"), Triple("b", "s", "c")),
        ...     edge_endpoints=((0, 1), (1, 2)), node_prizes=(0.0, 0.0, 2.0),
        ...     edge_prizes=(0.0, 1.0), objective=2.5, edge_cost=0.5,
        ...     searched_nodes=3, searched_edges=2)
        >>> print(result.textualize("triples", max_edges=1))
        (b, s, c)
        """
        check_text_format(fmt)
        edges = list(range(len(self.edges)))
        cut = max_edges is not None and max_edges < len(edges)
        if max_edges is not None and max_edges < 0:
            raise InvalidSettingError(f"max_edges must be at least 0, got {max_edges}")
        if order not in EDGE_ORDERS:
            raise InvalidSettingError(f"order must be one of {EDGE_ORDERS}, got {order!r}")
        if cut or order == "relevance":
            relevance = self.edge_relevance()
            # sorted() is stable: equal relevance keeps PCST's order, so the cut repeats.
            edges = sorted(edges, key=lambda i: -relevance[i])[:max_edges]
            if order == "graph":
                edges.sort()
        if fmt == "triples":
            return textualize_triples(
                qualified(Triple(e.head, verbalize(e.relation), e.tail), qualifier_of(e))
                for e in (self.edges[i] for i in edges)
            )
        touched = {end for i in edges for end in self.edge_endpoints[i]}
        nodes = zip(self.node_ids, self.node_texts, strict=True)
        return textualize_paper(
            ((node, text) for node, text in nodes if not cut or node in touched),
            (
                (
                    self.edge_endpoints[i][0],
                    with_note(verbalize(self.edges[i].relation), qualifier_of(self.edges[i])),
                    self.edge_endpoints[i][1],
                )
                for i in edges
            ),
        )

    def draw(self, path: str | Path, answer: str | None = None, **options: Any) -> Path:
        """Draw the subgraph: prizes as node size, virtual edge-nodes, topic entities marked.

        See :func:`kgcore.visualize.draw_gretriever`; ``answer`` rings the nodes it names.
        """
        from kgcore.visualize.gretriever import draw_gretriever  # matplotlib only when drawing

        return draw_gretriever(self, path, answer=answer, **options)

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
            "planned_answers": list(self.planned_answers),
        }
