"""End to end on a real local model: SmolLM2-135M through llama-cpp (plumbing, not accuracy)."""

from __future__ import annotations

import pytest

from kgcore.graph import InMemoryGraphStore
from kgcore.local_models import smollm_gguf_path
from langchain_fasttog import ChatLlamaCppLocal, FastToGChain, FastToGConfig, FastToGRetriever

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm() -> ChatLlamaCppLocal:
    return ChatLlamaCppLocal(model_path=str(smollm_gguf_path()), n_ctx=2048, max_tokens=32)


def test_fasttog_runs_on_a_real_gguf(
    movie_store: InMemoryGraphStore, smollm: ChatLlamaCppLocal
) -> None:
    config = FastToGConfig(width=2, max_depth=2, max_community_size=2)
    out = FastToGChain(graph=movie_store, llm=smollm, config=config).invoke(
        "which films share the director of [Cleopatra]"
    )
    assert isinstance(out["answer"], str) and out["answer"].strip()
    assert 2 <= out["llm_calls"] <= 2 * 2 * 2 + 2 + 2
    assert out["prompt_tokens"] > 0 and out["completion_tokens"] > 0  # llama.cpp reports usage
    assert out["topic_entities"] == ["Cleopatra"]
    for chain in out["chains"]:
        assert [c["depth"] for c in chain] == list(range(1, len(chain) + 1))
        assert all(1 <= len(c["nodes"]) <= 2 and c["text"] for c in chain)
    assert out["llm_seconds"] > 0 and out["graph_seconds"] >= 0


def test_retriever_documents_on_a_real_gguf(
    movie_store: InMemoryGraphStore, smollm: ChatLlamaCppLocal
) -> None:
    retriever = FastToGRetriever(
        graph=movie_store,
        llm=smollm,
        config=FastToGConfig(width=2, max_depth=1, max_community_size=2),
    )
    docs = retriever.invoke("who starred in [Giant]")
    for doc in docs:
        assert doc.page_content and doc.metadata["depth"] == 1
        assert doc.metadata["topic_entities"] == ["Giant"]


@pytest.mark.parametrize("prompt_cache_mb", [0, 64])
def test_shared_prompt_prefixes_are_not_evaluated_again(prompt_cache_mb: int) -> None:
    chat = ChatLlamaCppLocal(
        model_path=str(smollm_gguf_path()),
        n_ctx=2048,
        max_tokens=4,
        temperature=0.0,
        prompt_cache_mb=prompt_cache_mb,
    )
    assert chat.prompt_eval_stats() == {}
    prefix = "Facts: Cleopatra was directed by Joseph L. Mankiewicz in 1963. " * 20
    sent = 0
    for question in ("Who directed Cleopatra?", "When was Cleopatra released?"):
        message = chat.invoke(prefix + question)
        sent += message.usage_metadata["input_tokens"]  # type: ignore[index]
    stats = chat.prompt_eval_stats()
    assert 0 < stats["prompt_tokens_evaluated"] < 0.75 * sent  # the second prompt reused ~all
    assert stats["prompt_eval_seconds"] > 0
