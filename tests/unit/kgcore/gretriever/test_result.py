"""GRetrieverResult: relevance of selected edges and fitting the text to a smaller budget."""

from __future__ import annotations

import pytest

from kgcore.exceptions import InvalidSettingError
from kgcore.gretriever.result import GRetrieverResult
from kgcore.types import Triple


def _result() -> GRetrieverResult:
    # a -r-> b -s-> c -t-> d ; prizes make (c, t, d) most relevant, then (b, s, c), then (a, r, b)
    return GRetrieverResult(
        question="q",
        node_ids=(10, 11, 12, 13),
        node_texts=("a", "b", "c", "d"),
        edge_ids=(0, 1, 2),
        edges=(Triple("a", "r", "b"), Triple("b", "s", "c"), Triple("c", "t", "d")),
        edge_endpoints=((10, 11), (11, 12), (12, 13)),
        node_prizes=(0.0, 0.0, 1.0, 2.0),
        edge_prizes=(0.5, 0.0, 0.0),
        objective=1.0,
        edge_cost=0.5,
        searched_nodes=4,
        searched_edges=3,
    )


def test_edge_relevance_adds_the_end_node_prizes() -> None:
    assert _result().edge_relevance() == [0.5, 1.0, 3.0]


def test_max_edges_keeps_the_most_relevant_edges_in_pcst_order() -> None:
    result = _result()
    assert result.textualize("triples", max_edges=2) == "(b, s, c)\n(c, t, d)"
    assert result.textualize("triples", max_edges=0) == ""
    assert result.textualize("triples", max_edges=3) == result.textualize("triples")


def test_relevance_order_writes_the_most_relevant_edges_first() -> None:
    result = _result()
    assert result.textualize("triples", order="relevance") == "(c, t, d)\n(b, s, c)\n(a, r, b)"
    assert result.textualize("triples", max_edges=2, order="relevance") == "(c, t, d)\n(b, s, c)"
    with pytest.raises(InvalidSettingError, match="order must be one of"):
        result.textualize("triples", order="random")  # type: ignore[arg-type]


def test_paper_format_cut_keeps_only_nodes_of_kept_edges() -> None:
    text = _result().textualize("paper", max_edges=1)
    assert text == "node_id,node_attr\n12,c\n13,d\n\nsrc,edge_attr,dst\n12,t,13\n"


def test_without_a_cut_isolated_nodes_stay() -> None:
    single = GRetrieverResult(
        question="q", node_ids=(0,), node_texts=("a",), edge_ids=(), edges=(),
        edge_endpoints=(), node_prizes=(1.0,), edge_prizes=(), objective=1.0, edge_cost=0.5,
        searched_nodes=1, searched_edges=0,
    )  # fmt: skip
    assert "0,a" in single.textualize("paper", max_edges=5)


def test_negative_max_edges_is_refused() -> None:
    with pytest.raises(ValueError, match="max_edges"):
        _result().textualize("triples", max_edges=-1)
