"""End to end on a real local model: SmolLM2-135M through llama-cpp (plumbing, not accuracy)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from kgcore.graph import InMemoryGraphStore
from kglocal.locations import smollm_gguf_path
from langchain_fasttog import ChatLlamaCppLocal, FastToGChain, FastToGConfig, FastToGRetriever
from tests.support.movie_graph import MOVIE_TRIPLES

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
    # At least the reasoning call: the offline embedder makes the choices (as in kgqa).
    assert 1 <= out["llm_calls"] <= 2 * 2 * 2 + 2 + 2
    assert out["prompt_tokens"] > 0 and out["completion_tokens"] > 0  # llama.cpp reports usage
    assert out["topic_entities"] == ["Cleopatra"]
    # The model may choose no community to start from; then no chain, and the fallback answers.
    assert out["chains"] or out["fell_back"]
    for chain in out["chains"]:
        assert [c["depth"] for c in chain] == list(range(1, len(chain) + 1))
        assert all(1 <= len(c["nodes"]) <= 2 and c["text"] for c in chain)
    assert out["llm_seconds"] > 0 and out["graph_seconds"] >= 0


def test_retriever_documents_on_a_real_gguf(
    movie_store: InMemoryGraphStore, smollm: ChatLlamaCppLocal
) -> None:
    # No fallback: the answer is read from the facts the documents show (or "Unknown").
    retriever = FastToGRetriever(
        graph=movie_store,
        llm=smollm,
        config=FastToGConfig(width=2, max_depth=1, max_community_size=2, fallback="none"),
    )
    docs = retriever.invoke("who starred in [Giant]")
    # The start community (Giant's own facts), then at most width chains, one community each
    # at depth 1.
    starts = [d for d in docs if d.metadata["kind"] == "start"]
    chains = [d for d in docs if d.metadata["kind"] == "chain"]
    assert len(starts) <= 1 and 1 <= len(chains) <= 2 and len(docs) == len(starts + chains)
    shown = {"Giant"}
    for doc in chains:
        meta = doc.metadata
        assert meta["depth"] == 1 and meta["topic_entities"] == ["Giant"]
        assert not meta["fell_back"] and meta["answer"] == docs[0].metadata["answer"]
        # A community next to Giant: linked to it, and its text names Giant and its nodes.
        assert any("Giant" in (head, tail) for head, _, tail in meta["triples"])
        assert all(name in doc.page_content for name in ["Giant", *meta["entities"]])
        shown.update(meta["entities"])
    # The fact that answers the question is among the documents, and nothing farther from
    # Giant than its neighbours' neighbours.
    assert any(
        ["Giant", "starred_actors", "Elizabeth Taylor"] in d.metadata["triples"] for d in docs
    )
    near = {"Giant"}
    for _ in range(2):
        near |= {n for h, _, t in MOVIE_TRIPLES if near & {h, t} for n in (h, t)}
    assert shown <= near  # the chains' nodes (the start's followed paths may reach farther)
    # The answer is grounded in what the documents show.
    started = {n for d in starts for h, _, t in d.metadata["triples"] for n in (h, t)}
    assert docs[0].metadata["answer"] in shown | started | {"Unknown"}


def greedy_smollm(max_tokens: int, **settings: Any) -> ChatLlamaCppLocal:
    """SmolLM2 at temperature 0 (replies repeat exactly), with ``settings``."""
    return ChatLlamaCppLocal(
        model_path=str(smollm_gguf_path()),
        n_ctx=2048,
        max_tokens=max_tokens,
        temperature=0.0,
        **settings,
    )


@pytest.mark.parametrize("prompt_cache_mb", [0, 64])
def test_shared_prompt_prefixes_are_not_evaluated_again(prompt_cache_mb: int) -> None:
    chat = greedy_smollm(4, prompt_cache_mb=prompt_cache_mb)
    assert chat.prompt_eval_stats() == {}
    prefix = "Facts: Cleopatra was directed by Joseph L. Mankiewicz in 1963. " * 20
    sent = 0
    for question in ("Who directed Cleopatra?", "When was Cleopatra released?"):
        message = chat.invoke(prefix + question)
        sent += message.usage_metadata["input_tokens"]  # type: ignore[index]
    stats = chat.prompt_eval_stats()
    assert 0 < stats["prompt_tokens_evaluated"] < 0.75 * sent  # the second prompt reused ~all
    assert stats["prompt_eval_seconds"] > 0


def _demo_conversation(question: str) -> list[BaseMessage]:
    """A system message and a demonstration exchange (the fixed prefix), then ``question``."""
    return [
        SystemMessage("You answer questions from facts."),
        HumanMessage("Facts: Film Y was directed by Person Z. " * 12 + "Who directed Film Y?"),
        AIMessage("{Person Z}"),
        HumanMessage(question),
    ]


def test_a_fixed_prefix_is_evaluated_once_and_replies_do_not_depend_on_earlier_calls() -> None:
    def model() -> ChatLlamaCppLocal:
        return ChatLlamaCppLocal(
            model_path=str(smollm_gguf_path()), n_ctx=2048, max_tokens=12, temperature=0.0
        )

    question = "Facts: Cleopatra was directed by Joseph L. Mankiewicz. Who directed Cleopatra?"
    fresh = model()
    alone = fresh.invoke(_demo_conversation(question), fixed_prefix_messages=3).content

    chat = model()
    first = chat.invoke(_demo_conversation("Who wrote Hamlet?"), fixed_prefix_messages=3)
    chat.invoke("Tell me a long story about the sea. " * 10)  # another prompt in between
    before = chat.prompt_eval_stats()["prompt_tokens_evaluated"]
    second = chat.invoke(_demo_conversation(question), fixed_prefix_messages=3)
    evaluated = chat.prompt_eval_stats()["prompt_tokens_evaluated"] - before

    assert second.content == alone  # the same reply as in a fresh process
    last_turn = len(chat._client().tokenize(question.encode(), add_bos=False)) + 10  # + headers
    assert evaluated <= last_turn < second.usage_metadata["input_tokens"] / 3  # type: ignore[index]
    assert first.content  # a reply, not an error
    assert len(chat._state["prefix_states"]) == 1  # one saved state for the shared prefix


def test_without_a_fixed_prefix_or_with_the_cache_off_no_state_is_kept() -> None:
    chat = ChatLlamaCppLocal(
        model_path=str(smollm_gguf_path()), n_ctx=2048, max_tokens=4, prefix_cache=False
    )
    chat.invoke(_demo_conversation("Who directed Cleopatra?"), fixed_prefix_messages=3)
    assert "prefix_states" not in chat._state


def test_a_run_reuses_its_own_prompts_and_starts_from_an_empty_context() -> None:
    def model() -> ChatLlamaCppLocal:
        return ChatLlamaCppLocal(
            model_path=str(smollm_gguf_path()), n_ctx=2048, max_tokens=12, temperature=0.0
        )

    facts = "Facts: Cleopatra was directed by Joseph L. Mankiewicz in 1963. " * 10
    first = [SystemMessage("You answer from facts."), HumanMessage(facts + "Who directed it?")]
    second = [SystemMessage("You answer from facts."), HumanMessage(facts + "When was it made?")]
    story = "Tell me a long story about the sea. " * 10

    def run(chat: ChatLlamaCppLocal, scope: str) -> tuple[list[str], list[float]]:
        replies, evaluated = [], []
        for messages in (first, story, second):
            before = chat.prompt_eval_stats().get("prompt_tokens_evaluated", 0.0)
            message = chat.invoke(messages, cache_scope=scope)
            replies.append(str(message.content))
            evaluated.append(chat.prompt_eval_stats()["prompt_tokens_evaluated"] - before)
            evaluated.append(message.usage_metadata["input_tokens"])  # type: ignore[index]
        return replies, evaluated

    alone, counts = run(model(), "run-1")
    chat = model()
    chat.invoke(second)  # outside any run: leaves a context that opens like the run's prompts
    again, again_counts = run(chat, "run-2")

    assert again == alone  # the same replies whatever ran before the run
    assert again_counts[0] == again_counts[1]  # a run's first prompt reuses nothing from before
    # The third prompt starts from the first one's saved state, although another came between.
    assert counts[4] < counts[5] / 4 and again_counts[4] == counts[4]
    assert len(chat._state["run_states"]) == 3
    chat.invoke(first, cache_scope="run-3")
    assert len(chat._state["run_states"]) == 1  # a new run drops the earlier run's states


def test_without_the_run_cache_no_run_state_is_kept() -> None:
    chat = ChatLlamaCppLocal(
        model_path=str(smollm_gguf_path()), n_ctx=2048, max_tokens=4, run_cache=False
    )
    chat.invoke("Who directed Cleopatra?", cache_scope="run-1")
    assert "run_states" not in chat._state


def test_a_looping_reply_stops_early_and_keeps_its_tokens() -> None:
    """SmolLM2 at temperature 0 loops on "Drama; Comedy; ...": with ``stop_loops`` (the
    default) the reply ends soon after the loop is plain; without it, it runs to the cap. Up
    to where it stops the reply is the same, token for token."""
    prompt = "Continue this list without stopping: Drama; Comedy; Drama; Comedy; Drama; Comedy;"
    replies = {}
    for stop_loops in (True, False):
        replies[stop_loops] = greedy_smollm(160, stop_loops=stop_loops).invoke(prompt)
    stopped, capped = replies[True], replies[False]
    assert stopped.response_metadata["finish_reason"] == "repetition"
    assert capped.response_metadata["finish_reason"] == "length"
    assert stopped.usage_metadata["output_tokens"] < 80  # type: ignore[index]
    assert str(capped.content).startswith(str(stopped.content))
