from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode

from kgcore.exceptions import ConfigurationError, InvalidQuestionError
from kgcore.gretriever import PCSTSettings
from kgcore.linking import bracketed_entities
from llamaindex_gretriever import GRetrieverRetriever


@pytest.fixture
def retriever(movie_triples, embedder, tmp_path: Path) -> GRetrieverRetriever:
    return GRetrieverRetriever.from_triples(
        movie_triples, embedder, cache_dir=tmp_path, progress=False
    )


def test_is_a_llamaindex_retriever_returning_one_scored_text_node(retriever) -> None:
    assert isinstance(retriever, BaseRetriever)
    nodes = retriever.retrieve("who directed Cleopatra")
    assert len(nodes) == 1
    (hit,) = nodes
    assert isinstance(hit, NodeWithScore) and isinstance(hit.node, TextNode)
    result = retriever.retrieve_result("who directed Cleopatra")
    assert hit.score == pytest.approx(result.objective)
    assert hit.node.text == result.textualize("paper")


def test_metadata_holds_ids_triples_and_scores_but_not_the_prompt(retriever) -> None:
    node = retriever.retrieve("who directed Cleopatra")[0].node
    meta = node.metadata
    assert {"node_ids", "triples", "node_prizes", "edge_prizes", "objective"} <= set(meta)
    assert all(len(t) == 3 for t in meta["triples"])
    assert len(meta["node_ids"]) == len(meta["node_prizes"])
    # The LLM and the embedder see only the textualized graph.
    assert node.get_content(metadata_mode=MetadataMode.LLM) == node.text
    assert node.get_content(metadata_mode=MetadataMode.EMBED) == node.text


async def test_async_retrieval_matches_sync(retriever) -> None:
    sync = retriever.retrieve("who directed Cleopatra")[0]
    async_ = (await retriever.aretrieve("who directed Cleopatra"))[0]
    assert async_.node.text == sync.node.text
    assert async_.node.node_id == sync.node.node_id
    assert async_.score == sync.score


def test_triples_format_and_entity_extractor(movie_triples, embedder, tmp_path: Path) -> None:
    retriever = GRetrieverRetriever.from_triples(
        movie_triples,
        embedder,
        cache_dir=tmp_path,
        progress=False,
        text_format="triples",
        entity_extractor=bracketed_entities,
        hops=1,
        preset="paper",  # the region alone: the default adds the planned paths' facts
    )
    node = retriever.retrieve("who directed [Shane]")[0].node
    assert node.metadata["seeds"] == ["Shane"]
    assert node.text.startswith("(") and "Shane" in node.text
    assert set(node.metadata["nodes"]) <= {"Shane", "George Stevens"}


def test_works_in_a_retriever_query_engine(retriever) -> None:
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM(max_tokens=8))
    response = engine.query("who directed Cleopatra")
    assert len(response.source_nodes) == 1
    assert response.source_nodes[0].node.metadata["retriever"] == "g-retriever"
    assert str(response)


async def test_works_in_an_async_query_engine(retriever) -> None:
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM(max_tokens=8))
    response = await engine.aquery("who directed Cleopatra")
    assert response.source_nodes[0].node.metadata["triples"]


def test_bad_input(retriever, movie_triples, embedder) -> None:
    with pytest.raises(InvalidQuestionError):
        retriever.retrieve(QueryBundle(query_str=""))
    with pytest.raises(ConfigurationError):
        GRetrieverRetriever(retriever.gretriever, text_format="xml")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        GRetrieverRetriever.from_triples(
            movie_triples, embedder, cache_dir=None, pcst=PCSTSettings(k_edges=-2)
        )


async def test_two_concurrent_aretrieves_overlap_their_graph_waits(embedder) -> None:
    import asyncio
    import threading
    import time

    from kgcore.graph import InMemoryGraphStore

    class SlowStore(InMemoryGraphStore):
        calls = 0
        lock = threading.Lock()

        def neighbors(self, node: str, limit: int | None = None) -> list:  # type: ignore[type-arg]
            with self.lock:
                type(self).calls += 1
            time.sleep(0.3)  # a blocking read, as a graph server's
            return super().neighbors(node, limit)

    store = SlowStore.from_triples([("Heat", "directed_by", "Michael Mann")])
    retriever = GRetrieverRetriever.from_graph(store, embedder, cache_dir=None)
    started = time.perf_counter()
    results = await asyncio.gather(
        *(retriever.aretrieve(f"who directed [Heat] {i}") for i in (1, 2))
    )
    elapsed = time.perf_counter() - started
    assert all("Michael Mann" in nodes[0].node.text for nodes in results)
    serial = SlowStore.calls * 0.3
    assert SlowStore.calls >= 2 and elapsed < 0.75 * serial, f"{elapsed:.2f}s, serial {serial:.2f}s"
