from __future__ import annotations

import numpy as np
import pytest

from kgcore.exceptions import EmptyGraphError, GraphLoadError
from kgcore.gretriever import TextualGraph
from kgcore.types import Triple


def test_from_triples_numbers_nodes_as_first_seen_and_drops_duplicates() -> None:
    graph = TextualGraph.from_triples([("a", "r", "b"), ("b", "s", "c"), ("a", "r", "b")])
    assert graph.node_texts == ("a", "b", "c")
    assert graph.edge_index.tolist() == [[0, 1], [1, 2]]
    assert graph.triples() == [Triple("a", "r", "b"), Triple("b", "s", "c")]


def test_extra_nodes_are_kept_even_without_edges() -> None:
    graph = TextualGraph.from_triples([("a", "r", "b")], nodes=["lonely", "a"])
    assert graph.node_texts == ("lonely", "a", "b")
    assert graph.position("b") == 2 and graph.position("zzz") is None


def test_from_gretriever_lists() -> None:
    graph = TextualGraph.from_nodes_and_edges([(1, "y"), (0, "x")], [(0, "to", 1)])
    assert graph.node_texts == ("x", "y")
    assert graph.edge_texts("triple") == ("x to y",)


def test_bad_edges_are_rejected() -> None:
    with pytest.raises(GraphLoadError):
        TextualGraph(("a",), np.array([[0], [3]]), ("r",))
    with pytest.raises(GraphLoadError):
        TextualGraph(("a", "b"), np.array([[0], [1]]), ("r", "s"))
    with pytest.raises(GraphLoadError):
        TextualGraph.from_nodes_and_edges([(0, "x"), (5, "y")], [])


def test_content_hash_follows_the_content() -> None:
    one = TextualGraph.from_triples([("a", "r", "b")])
    assert one.content_hash() == TextualGraph.from_triples([("a", "r", "b")]).content_hash()
    assert one.content_hash() != TextualGraph.from_triples([("a", "s", "b")]).content_hash()
    assert one.content_hash() != TextualGraph.from_triples([("b", "r", "a")]).content_hash()


def test_empty_graph_is_reported() -> None:
    with pytest.raises(EmptyGraphError):
        TextualGraph.from_triples([]).require_nonempty()


def test_a_qualified_triple_keeps_its_note_through_the_graph_and_its_text() -> None:
    from kgcore.gretriever import GRetrieverResult
    from kgcore.types import qualified

    acted = qualified(Triple("Keanu Reeves", "ACTED_IN", "The Matrix"), "roles: Neo")
    graph = TextualGraph.from_triples([acted, ("Lana Wachowski", "DIRECTED", "The Matrix")])
    assert graph.edge_notes == ("roles: Neo", "")
    first, second = graph.triples()
    assert first.qualifier == "roles: Neo" and not hasattr(second, "qualifier")
    assert graph.edge_texts() == ("ACTED_IN", "DIRECTED")  # what is embedded is unchanged
    result = GRetrieverResult(
        question="q", node_ids=(0, 1, 2), node_texts=graph.node_texts, edge_ids=(0, 1),
        edges=tuple(graph.triples()), edge_endpoints=((0, 1), (2, 1)),
        node_prizes=(0.0, 0.0, 0.0), edge_prizes=(1.0, 0.0), objective=1.0, edge_cost=0.5,
        searched_nodes=3, searched_edges=2,
    )  # fmt: skip
    assert result.textualize("triples").splitlines() == [
        "(Keanu Reeves, ACTED IN, The Matrix; roles: Neo)",
        "(Lana Wachowski, DIRECTED, The Matrix)",
    ]
    assert "0,ACTED IN (roles: Neo),1" in result.textualize("paper")
    plain = TextualGraph.from_triples([("a", "r", "b")])
    assert plain.edge_notes == ()
    with pytest.raises(GraphLoadError, match="1 edge notes were given for 2 edges"):
        TextualGraph(("a", "b"), np.array([[0, 1], [1, 0]]), ("r", "s"), ("x",))
