from __future__ import annotations

import asyncio
import threading
import time
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage

from kgcore.exceptions import ConfigurationError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import LLMRequest
from kgcore.methods.fasttog.prompts import reason_request
from langchain_fasttog import FastToGChain, FastToGConfig, FastToGRetriever, LangChainLLM
from langchain_fasttog.llm import SamplingPolicy

QUESTION = "which films share the director of [Cleopatra]"
#: Plumbing tests: their scripted answers ("x") are placeholders the facts do not hold, and
#: their scripted choices ("{1, 2}") are the LLM's (the offline embedder would rank instead).
CONFIG = FastToGConfig(
    width=2, max_community_size=2, grounded_answers=False, first_choice="llm", chain_choice="llm"
)


class RunRecorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.chat_runs: list[tuple[str | None, UUID | None]] = []
        self.retriever_runs: list[UUID] = []

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self.chat_runs.append((kwargs.get("name"), parent_run_id))

    def on_retriever_start(
        self, serialized: Any, query: str, *, run_id: UUID, **kwargs: Any
    ) -> None:
        self.retriever_runs.append(run_id)


def fake(*replies: str) -> FakeListChatModel:
    return FakeListChatModel(responses=list(replies))


def test_retriever_returns_chain_communities_as_documents(movie_store: InMemoryGraphStore) -> None:
    retriever = FastToGRetriever(
        graph=movie_store, llm=fake("{1, 2}", "{All About Eve}"), config=CONFIG
    )
    docs = retriever.invoke(QUESTION)
    assert len(docs) == 3 and all(isinstance(d, Document) for d in docs)
    # The start community (the topic's facts), then the two chains' communities.
    assert [d.metadata["kind"] for d in docs].count("start") == 1
    chains = sorted(
        (d for d in docs if d.metadata["kind"] == "chain"), key=lambda d: d.metadata["chain"]
    )
    first = chains[0]
    assert [d.metadata["chain"] for d in chains] == [0, 1]
    assert first.metadata["depth"] == 1 and first.metadata["answer"] == "All About Eve"
    assert first.metadata["grounded"] is False  # grounded_answers=False: the model's own
    assert first.metadata["entities"] and first.metadata["triples"]
    assert isinstance(first.metadata["modularity"], float)
    heads_and_tails = {x for t in first.metadata["triples"] for x in (t[0], t[2])}
    assert set(first.metadata["entities"]) <= heads_and_tails | {"Cleopatra"}
    assert first.page_content.endswith(".")


def test_k_at_construction_and_per_call(movie_store: InMemoryGraphStore) -> None:
    retriever = FastToGRetriever(graph=movie_store, llm=fake("{1, 2}", "{x}"), config=CONFIG, k=1)
    assert len(retriever.invoke(QUESTION)) == 1
    retriever = FastToGRetriever(graph=movie_store, llm=fake("{1, 2}", "{x}"), config=CONFIG)
    assert len(retriever.invoke(QUESTION, k=1)) == 1
    with pytest.raises(ValueError, match="k must be"):
        retriever.invoke(QUESTION, k=0)


def test_every_llm_call_is_a_child_run_of_the_retriever(movie_store: InMemoryGraphStore) -> None:
    recorder = RunRecorder()
    retriever = FastToGRetriever(graph=movie_store, llm=fake("{1}", "{x}"), config=CONFIG)
    retriever.invoke(QUESTION, config={"callbacks": [recorder]})
    assert [name for name, _ in recorder.chat_runs] == ["fasttog.prune", "fasttog.reason"]
    assert {parent for _, parent in recorder.chat_runs} == set(recorder.retriever_runs)


def test_async_retriever_path(movie_store: InMemoryGraphStore) -> None:
    recorder = RunRecorder()
    retriever = FastToGRetriever(graph=movie_store, llm=fake("{1}", "{x}"), config=CONFIG)
    docs = asyncio.run(retriever.ainvoke(QUESTION, config={"callbacks": [recorder]}))
    assert [d.metadata["kind"] for d in docs] == ["start", "chain"]
    assert {d.metadata["answer"] for d in docs} == {"x"}
    assert len(recorder.chat_runs) == 2


def test_chain_accepts_str_and_dict_and_batches(movie_store: InMemoryGraphStore) -> None:
    chain = FastToGChain(graph=movie_store, llm=fake("{1}", "{All About Eve}"), config=CONFIG)
    out = chain.invoke({"question": QUESTION})
    assert out["answer"] == "All About Eve" and out["llm_calls"] == 2
    assert out["chains"][0][0]["depth"] == 1 and out["fell_back"] is False
    assert out["grounded"] is False  # CONFIG has grounded_answers=False
    assert {"graph_seconds", "llm_seconds", "prompt_tokens", "depth"} <= set(out)
    results = chain.batch([QUESTION, {"question": QUESTION}], config={"max_concurrency": 1})
    assert len(results) == 2
    results = asyncio.run(chain.abatch([QUESTION, QUESTION]))
    assert len(results) == 2 and all("answer" in r for r in results)


def test_chain_topic_entities_and_bad_input(movie_store: InMemoryGraphStore) -> None:
    chain = FastToGChain(graph=movie_store, llm=fake("{1}", "{x}"), config=CONFIG)
    out = chain.invoke({"question": "who directed it", "topic_entities": ["Giant"]})
    assert out["topic_entities"] == ["Giant"]
    with pytest.raises(ValueError, match="empty"):
        chain.invoke({"question": " "})
    with pytest.raises(ConfigurationError, match="GraphStore.*got object"):
        FastToGChain(graph=object(), llm=fake("{1}"))  # refused at construction


class Recording(FakeListChatModel):
    """A chat model with sampling fields that records the settings of every call."""

    temperature: float = 0.0
    max_tokens: int = 1000
    seen: list[tuple[float, int]] = []

    def _call(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[override]
        self.seen.append(
            (kwargs.get("temperature", self.temperature), kwargs.get("max_tokens", self.max_tokens))
        )
        return super()._call(messages, stop, run_manager, **kwargs)


def test_adapter_applies_request_settings_only_by_policy_and_reads_usage() -> None:
    request = LLMRequest.from_prompt("hi", purpose="reason", temperature=0.1, max_tokens=64)
    model = Recording(responses=["ok"])
    assert LangChainLLM(model).generate(request).text == "ok"
    assert model.seen == [(0.0, 1000)]  # the user's settings, on the user's instance
    LangChainLLM(model, sampling=SamplingPolicy.paper()).generate(request)
    LangChainLLM(model, sampling=SamplingPolicy(max_tokens=True, min_max_tokens=512)).generate(
        request
    )
    assert model.seen[1:] == [(0.1, 64), (0.0, 512)]

    class WithUsage(FakeListChatModel):
        def invoke(self, *args: Any, **kwargs: Any) -> AIMessage:  # type: ignore[override]
            usage = {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15}
            return AIMessage(content="ok", usage_metadata=usage)

    request = LLMRequest.from_prompt("x", purpose="io")
    reply = LangChainLLM(WithUsage(responses=["ok"])).generate(request)
    assert (reply.prompt_tokens, reply.completion_tokens) == (12, 3)


def test_local_model_takes_call_settings_without_a_copy() -> None:
    from langchain_fasttog import ChatLlamaCppLocal

    model = ChatLlamaCppLocal(model_path="unused.gguf")
    llm = LangChainLLM(model, sampling=SamplingPolicy.paper())
    assert llm.model is model
    kwargs = llm.call_kwargs(LLMRequest.from_prompt("x", purpose="prune", temperature=0.4))
    assert kwargs == {"temperature": 0.4, "max_tokens": 256}


def test_a_fixed_prefix_is_passed_only_to_a_model_that_caches_it() -> None:
    from langchain_fasttog import ChatLlamaCppLocal

    request = reason_request("who directed [X]", "X.", [["X directed by Y."]])
    local = LangChainLLM(ChatLlamaCppLocal(model_path="unused.gguf"))
    assert local.call_kwargs(request) == {"fixed_prefix_messages": request.fixed_prefix}
    assert request.fixed_prefix == len(request.messages) - 1 > 0
    assert LangChainLLM(fake("ok")).call_kwargs(request) == {}  # any other chat model
    plain = LLMRequest.from_prompt("x", purpose="io")
    assert local.call_kwargs(plain) == {}


def test_a_runs_cache_scope_is_passed_only_to_a_model_that_caches_runs() -> None:
    from dataclasses import replace

    from langchain_fasttog import ChatLlamaCppLocal

    request = replace(LLMRequest.from_prompt("x", purpose="io"), cache_scope="run-7")
    local = LangChainLLM(ChatLlamaCppLocal(model_path="unused.gguf"))
    assert local.call_kwargs(request) == {"cache_scope": "run-7"}
    assert LangChainLLM(fake("ok")).call_kwargs(request) == {}


class SlowStore(InMemoryGraphStore):
    """Every ``neighbors`` read blocks for 0.3 s, as a slow graph server would."""

    calls = 0
    lock = threading.Lock()

    def neighbors(self, node: str, limit: int | None = None) -> list[Any]:
        with self.lock:
            type(self).calls += 1
        time.sleep(0.3)
        return super().neighbors(node, limit)


def test_two_concurrent_ainvokes_overlap_their_graph_waits() -> None:
    store = SlowStore.from_triples([("Heat", "directed_by", "Michael Mann")])
    config = FastToGConfig(width=1, max_depth=1, max_community_size=2)

    async def both() -> list[list[Document]]:
        retrievers = [
            FastToGRetriever(graph=store, llm=fake("{Michael Mann}"), config=config)
            for _ in range(2)
        ]
        return list(await asyncio.gather(*(r.ainvoke("who directed [Heat]") for r in retrievers)))

    started = time.perf_counter()
    results = asyncio.run(both())
    elapsed = time.perf_counter() - started
    assert [docs[0].metadata["answer"] for docs in results] == ["Michael Mann"] * 2
    serial = store.calls * 0.3
    assert store.calls >= 2 and elapsed < 0.75 * serial, f"{elapsed:.2f}s, serial {serial:.2f}s"
