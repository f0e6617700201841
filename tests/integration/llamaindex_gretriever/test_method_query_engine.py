"""A LlamaIndex query engine answering with FastToG on a real local GGUF model (slow; plumbing,
not accuracy): the method's answer is the response, the facts it reasoned over the sources."""

from __future__ import annotations

import pytest

from kgcore.graph import InMemoryGraphStore
from llamaindex_gretriever import FastToGRetriever, build_llamacpp_llm
from tests.support.movie_graph import MOVIE_TRIPLES

pytestmark = pytest.mark.slow


def test_a_query_engine_answers_with_fasttog_on_a_real_gguf() -> None:
    from kglocal.locations import smollm_gguf_path

    llm = build_llamacpp_llm(
        smollm_gguf_path(), max_new_tokens=24, context_window=2048, n_threads=1
    )
    store = InMemoryGraphStore.from_triples(MOVIE_TRIPLES)
    # No fallback: the answer is a node of the facts shown, or Unknown.
    retriever = FastToGRetriever(
        store, llm, width=2, max_depth=1, max_community_size=2, fallback="none"
    )
    response = retriever.as_query_engine().query("who directed [Cleopatra]")

    assert response.metadata is not None
    result = response.metadata["result"]
    assert result["method"] == "fasttog" and result["topic_entities"] == ["Cleopatra"]
    assert 1 <= result["llm_calls"] <= 2 * 2 + 2 + 2
    assert str(response).strip()
    # The sources are what FastToG reasoned over: the start community holds Cleopatra's facts.
    sources = [n.node for n in response.source_nodes]
    start = [n for n in sources if n.metadata["kind"] == "start"]
    assert start and "Joseph L. Mankiewicz" in start[0].get_content()
    shown = {x for n in sources for t in n.metadata["triples"] for x in (t[0], t[2])}
    answer = response.metadata["answer"]
    assert answer == "Unknown" or set(answer.split("; ")) <= shown
