"""The answer-node scorer of ``gretriever-gnn``: trains on a tiny family graph, loads through
``build_method``, answers a node, reads a shuffled graph differently, refuses bad checkpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from kgcore.builder import build_method
from kgcore.exceptions import ConfigurationError
from kgcore.graph import InMemoryGraphStore
from kgcore.gretriever.gnn.node_scorer import NodeScorer, NodeScorerConfig, save_scorer
from kgcore.llm import ScriptedLLM
from kgcore.methods.gretriever.scorer_input import SubgraphReader
from kgmodels.gnn.node_scoring_training import ScorerTrainConfig, train_scorer
from tests.support.fake_embedder import FakeEmbedder

FAMILY = [
    ("ann", "children", "bob"),
    ("bob", "children", "cal"),
    ("cal", "place_of_birth", "paris"),
    ("bob", "place_of_birth", "oslo"),
    ("ann", "place_of_birth", "rome"),
    ("dan", "children", "eve"),
    ("eve", "children", "fay"),
    ("fay", "place_of_birth", "kyiv"),
    ("eve", "place_of_birth", "lima"),
    ("dan", "place_of_birth", "bern"),
    ("ann", "spouse", "dan"),
]
QUESTIONS = [
    ("what is ann 's children 's children 's place of birth ?", ["ann"], ["paris"]),
    ("what is dan 's children 's children 's place of birth ?", ["dan"], ["kyiv"]),
    ("what is ann 's children 's place of birth ?", ["ann"], ["oslo"]),
    ("what is dan 's children 's place of birth ?", ["dan"], ["lima"]),
    ("what is ann 's place of birth ?", ["ann"], ["rome"]),
    ("what is dan 's place of birth ?", ["dan"], ["bern"]),
]
RETRIEVAL = {"hops": 3, "k_nodes": 20, "k_edges": 20}
SMALL = NodeScorerConfig(dim=16, hidden=16, heads=2, layers=2, dropout=0.0)


@pytest.fixture()
def store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(FAMILY)


@pytest.fixture()
def checkpoint(tmp_path: Path, store: InMemoryGraphStore) -> Path:
    reader = SubgraphReader(store, FakeEmbedder(dim=16), **RETRIEVAL)
    examples = [reader.read(q, topics, answers).data for q, topics, answers in QUESTIONS]
    state = train_scorer(
        examples * 4,
        tmp_path,
        ScorerTrainConfig(epochs=8, batch_size=4, lr=1e-2, held_out=0.0),
        SMALL,
        RETRIEVAL,
        progress=False,
    )
    losses = [epoch["loss"] for epoch in state["history"]]
    assert losses[-1] < 0.5 * losses[0]  # it learns on the fixture
    assert (tmp_path / "state.json").is_file()
    return tmp_path / "best.safetensors"


def test_a_trained_scorer_loads_through_build_method_and_answers_a_node(
    store: InMemoryGraphStore, checkpoint: Path
) -> None:
    engine = build_method("gretriever-gnn", store, embeddings=FakeEmbedder(dim=16),
                          checkpoint=str(checkpoint))  # fmt: skip
    assert engine.retrieval == RETRIEVAL  # the checkpoint's retrieval settings
    result = engine.run(QUESTIONS[0][0], ScriptedLLM([]), ["ann"])
    assert result.llm_calls == 0 and result.grounded
    assert store.has_node(result.answer)
    assert result.extra["subgraph"] == "intact" and result.extra["topic_entities"] == ["ann"]
    assert result.extra["scores"][0][0] == result.answer
    if result.answer != "ann":  # the evidence ties the answer to the topic entity
        first, last = result.context.splitlines()[0], result.context.splitlines()[-1]
        assert first.startswith("(ann,") and result.answer in last


def test_the_shuffled_graph_is_read_differently(
    store: InMemoryGraphStore, checkpoint: Path
) -> None:
    options = {"embeddings": FakeEmbedder(dim=16), "checkpoint": str(checkpoint)}
    intact = build_method("gretriever-gnn", store, **options)
    shuffled = build_method("gretriever-gnn", store, subgraph="shuffled", **options)
    question, topics, _ = QUESTIONS[0]
    read_intact = intact.reader.read(question, topics)
    read_shuffled = shuffled.reader.read(question, topics)
    assert set(read_intact.triples) != set(read_shuffled.triples)
    assert sorted(t.relation for t in read_intact.triples) == sorted(
        t.relation for t in read_shuffled.triples
    )
    assert shuffled.reader.read(question, topics).triples == read_shuffled.triples  # seeded
    assert intact.scores(read_intact) != shuffled.scores(read_shuffled)
    assert shuffled.run(question, ScriptedLLM([]), topics).extra["subgraph"] == "shuffled"


def test_bad_checkpoints_and_options_are_configuration_errors(
    tmp_path: Path, store: InMemoryGraphStore, checkpoint: Path
) -> None:
    options = {"embeddings": FakeEmbedder(dim=16)}
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(ConfigurationError, match="not a safetensors checkpoint"):
        build_method("gretriever-gnn", store, checkpoint=str(junk), **options)
    from safetensors.torch import save_file

    plain = tmp_path / "plain.safetensors"
    save_file({"w": torch.zeros(2)}, str(plain))
    with pytest.raises(ConfigurationError, match="not a gretriever-gnn checkpoint"):
        build_method("gretriever-gnn", store, checkpoint=str(plain), **options)
    with pytest.raises(ConfigurationError, match="checkpoint not found"):
        build_method("gretriever-gnn", store, checkpoint=str(tmp_path / "absent"), **options)
    wider = tmp_path / "wider.safetensors"
    save_scorer(NodeScorer(SMALL), wider, RETRIEVAL)
    state = wider.read_bytes().replace(b'hidden\\": 16', b'hidden\\": 32')
    wider.write_bytes(state)
    with pytest.raises(ConfigurationError, match="does not fit"):
        build_method("gretriever-gnn", store, checkpoint=str(wider), **options)
    with pytest.raises(ConfigurationError, match="subgraph="):
        build_method("gretriever-gnn", store, checkpoint=str(checkpoint), subgraph="x", **options)
    with pytest.raises(ConfigurationError, match="takes no labels"):
        build_method("gretriever-gnn", store, checkpoint=str(checkpoint), labels=(), **options)


def test_a_subgraph_without_edges_answers_its_one_node_with_no_path(
    store: InMemoryGraphStore, checkpoint: Path
) -> None:
    engine = build_method("gretriever-gnn", store, embeddings=FakeEmbedder(dim=16),
                          checkpoint=str(checkpoint), k_nodes=0, k_edges=0)  # fmt: skip
    result = engine.run("what is ann 's spouse ?", ScriptedLLM([]), ["ann"])
    assert (result.extra["nodes"], result.extra["edges"]) == (1, 0)
    assert result.answer == result.extra["scores"][0][0] and store.has_node(result.answer)
    assert result.context == "" and result.llm_calls == 0
