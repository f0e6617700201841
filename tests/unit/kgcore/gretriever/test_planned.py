"""G-Retriever's question-aware prizes (issue 66): the planned relation paths' answers and the
facts reaching them enter the subgraph; the paper's retrieval (``paths=None``) is unchanged."""

from __future__ import annotations

from kgcore.graph import InMemoryGraphStore
from kgcore.gretriever import GRetriever, RegionSettings
from kgcore.gretriever.planned import PlannedPaths, plan_paths
from kgcore.paths.settings import PathSettings
from tests.support.fake_embedder import FakeEmbedder
from tests.support.many_answers import DIRECTORS, QUESTION, TRIPLES

REGION = RegionSettings(whole_graph_max_nodes=2, hops=1)  # regions, one hop: no director


def retriever(paths: PathSettings | None) -> GRetriever:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    return GRetriever(store=store, embedder=FakeEmbedder(dim=32), region=REGION, paths=paths)


def test_the_planned_paths_bring_every_answer_into_the_subgraph() -> None:
    result = retriever(PathSettings()).retrieve(QUESTION, topic_entities=["Jane Seymour"])
    assert set(DIRECTORS) <= set(result.node_texts)
    assert {"Film 0", "Jane Seymour"} <= set(result.node_texts)  # joined to the topic


def test_the_paper_retrieval_stays_in_its_one_hop_region() -> None:
    result = retriever(None).retrieve(QUESTION, topic_entities=["Jane Seymour"])
    assert not set(DIRECTORS) & set(result.node_texts)


def test_no_topic_or_no_planning_plans_nothing() -> None:
    store = InMemoryGraphStore.from_triples(TRIPLES)
    assert plan_paths(store, QUESTION, [], PathSettings()) == PlannedPaths()
    assert plan_paths(store, QUESTION, ["Jane Seymour"], PathSettings(max_hops=0)) == PlannedPaths()
