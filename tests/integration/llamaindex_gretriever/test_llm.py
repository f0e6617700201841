"""The LlamaIndex query engine on a real local GGUF model (slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from llamaindex_gretriever import (
    GRetrieverRetriever,
    build_llamacpp_llm,
    chatml_messages_to_prompt,
)


@pytest.mark.slow
def test_query_engine_with_a_real_gguf(movie_triples, embedder, tmp_path: Path) -> None:
    from llama_index.core.query_engine import RetrieverQueryEngine

    from kglocal.locations import smollm_gguf_path

    llm = build_llamacpp_llm(smollm_gguf_path(), max_new_tokens=8, context_window=1024, n_threads=1)
    assert llm.messages_to_prompt is chatml_messages_to_prompt
    retriever = GRetrieverRetriever.from_triples(
        movie_triples, embedder, cache_dir=tmp_path, progress=False
    )
    response = RetrieverQueryEngine.from_args(retriever, llm=llm).query("who directed Cleopatra")
    # The model's reply: LlamaIndex gives "Empty Response" without nodes, None without text.
    assert response.response and response.response.strip() != "Empty Response"
    # The subgraph the model read holds the fact that answers the question.
    triples = response.source_nodes[0].node.metadata["triples"]
    assert ["Cleopatra", "directed_by", "Joseph L. Mankiewicz"] in [list(t) for t in triples]
