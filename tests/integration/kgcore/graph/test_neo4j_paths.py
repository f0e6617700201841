"""Path planning over Bolt gives what it gives in memory: the same paths offered, the same
path followed through a compound node, the same answer and facts, a few queries per hop."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgcore.graph.compound import compound_view
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.neo4j_store import Neo4jGraphStore
from kgcore.methods.fasttog import FastToG
from kgcore.paths import Hop, follow_path
from tests.support.neo4j_testserver import BoltServer, loaded_stores
from tests.support.path_graphs import FAMILY
from tests.unit.kgcore.methods.fasttog.test_path_planning import (
    NOT_A_CHAIN,
    THREE_HOPS,
    reasoning,
)


@pytest.fixture(scope="module")
def stores(bolt_server: BoltServer) -> Iterator[tuple[InMemoryGraphStore, Neo4jGraphStore]]:
    with loaded_stores(bolt_server, FAMILY) as pair:
        yield pair


def test_a_three_hop_path_question_gets_the_same_answer_and_facts_over_bolt(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore],
) -> None:
    runs = []
    for question in (THREE_HOPS, NOT_A_CHAIN):  # the graph answers; the model reads the paths
        for store in stores:
            llm = reasoning("{Emden}")
            result = FastToG(store).run(question, llm)
            prompts = [r.prompt_text for r in llm.requests]
            runs.append((result.answer, result.chains, result.extra["path"], prompts))
    assert runs[0] == runs[1] and runs[2] == runs[3]
    assert runs[0][0] == runs[2][0] == "Emden"
    assert not runs[0][3] and runs[2][3]  # no call for the chain question, one for the other


def test_following_a_path_reads_a_bounded_number_of_queries_per_hop(
    stores: tuple[InMemoryGraphStore, Neo4jGraphStore],
) -> None:
    memory, server = stores
    view = compound_view(server)
    plan = FastToG(memory).run(THREE_HOPS, reasoning("{Emden}"))
    hops = plan.extra["path"]["relations"]

    server.reset_round_trips()
    walked = follow_path(view, "Ann", [Hop(r, f) for r, f in hops])
    assert walked.answers == ["Emden"]
    reads = sum(server.queries.values())
    # One neighbour query per hop, and one for the legs of the compound nodes met.
    assert reads <= 2 * len(hops), server.queries
