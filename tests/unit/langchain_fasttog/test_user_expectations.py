"""What LangChain users expect of the adapters: wrapped models, their own sampling settings,
strict constructors, graph objects they already have, agent-friendly unknown entities."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from langchain_community.graphs import NetworkxEntityGraph
from langchain_community.graphs.networkx_graph import KnowledgeTriple
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableLambda

from kgcore.exceptions import ConfigurationError, EntityNotFoundError, InvalidQuestionError
from kgcore.graph import InMemoryGraphStore
from langchain_fasttog import (
    CGPEChain,
    CGPERetriever,
    FastToGChain,
    FastToGConfig,
    FastToGRetriever,
    ToGChain,
)

QUESTION = "which films share the director of [Cleopatra]"
#: The LLM makes the choices the tests script ("{1}"); the offline embedder would rank instead.
LLM_CHOICES = {"first_choice": "llm", "chain_choice": "llm"}


class Recording(FakeListChatModel):
    """Records the temperature and token cap each call runs with."""

    temperature: float = 0.0
    max_tokens: int = 1000
    seen: list[tuple[float, int]] = []

    def _call(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[override]
        self.seen.append(
            (kwargs.get("temperature", self.temperature), kwargs.get("max_tokens", self.max_tokens))
        )
        return super()._call(messages, stop, run_manager, **kwargs)


class Names(BaseCallbackHandler):
    def __init__(self) -> None:
        self.names: list[str | None] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.names.append(kwargs.get("name"))

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.names.append(kwargs.get("name"))


def test_wrapped_models_are_accepted_and_used(movie_store: InMemoryGraphStore) -> None:
    base = FakeListChatModel(responses=["{1}", "{All About Eve}"])
    for llm in (
        base.with_retry(stop_after_attempt=2),
        base.bind(stop=["\n\n"]),
        base.with_fallbacks([FakeListChatModel(responses=["{x}"])]),
        base.configurable_fields(),
        RunnableLambda(lambda messages: base.invoke(messages)),
    ):
        base.i = 0
        retriever = FastToGRetriever(
            graph=movie_store, llm=llm, max_community_size=2, width=1, **LLM_CHOICES
        )
        docs = retriever.invoke(QUESTION)
        assert docs[0].metadata["answer"] == "All About Eve", type(llm).__name__


def test_a_non_runnable_llm_is_refused_with_a_clear_message(
    movie_store: InMemoryGraphStore,
) -> None:
    with pytest.raises(ConfigurationError, match="llm must be a LangChain chat model.*got str"):
        FastToGRetriever(graph=movie_store, llm="gpt-4o")


def test_the_users_model_keeps_its_settings_unless_asked(movie_store: InMemoryGraphStore) -> None:
    model = Recording(responses=["{1}", "{All About Eve}"])
    FastToGRetriever(
        graph=movie_store,
        llm=model,
        max_community_size=2,
        width=1,
        grounded_answers=False,
        **LLM_CHOICES,
    ).invoke(QUESTION)
    assert model.seen == [(0.0, 1000), (0.0, 1000)]  # on the user's instance, its settings

    model = Recording(responses=["{1}", "{All About Eve}"], seen=[])
    FastToGRetriever(
        graph=movie_store,
        llm=model,
        max_community_size=2,
        width=1,
        prune_temperature=0.3,
        grounded_answers=False,
        **LLM_CHOICES,
    ).invoke(QUESTION)
    assert model.seen == [(0.3, 1000), (0.0, 1000)]  # only the field the user set

    model = Recording(responses=["{1}", "{All About Eve}"], seen=[])
    FastToGRetriever(
        graph=movie_store,
        llm=model,
        max_community_size=2,
        width=1,
        sampling="paper",
        grounded_answers=False,
        **LLM_CHOICES,
    ).invoke(QUESTION)
    assert model.seen == [(0.4, 1000), (0.1, 1000)]  # paper temperatures, never a token cap


def test_unknown_keywords_are_refused_and_config_fields_accepted(
    movie_store: InMemoryGraphStore,
) -> None:
    llm = FakeListChatModel(responses=["{1}"])
    retriever = FastToGRetriever(graph=movie_store, llm=llm, width=1, max_depth=1)
    assert (retriever.config.width, retriever.config.max_depth) == (1, 1)
    merged = FastToGChain(
        graph=movie_store, llm=llm, config=FastToGConfig(algorithm="leiden"), width=2
    )
    assert (merged.config.lcs.algorithm, merged.config.width) == ("leiden", 2)
    for cls in (FastToGRetriever, FastToGChain, CGPERetriever, CGPEChain, ToGChain):
        with pytest.raises(ConfigurationError, match="has no setting widht"):
            cls(graph=movie_store, llm=llm, widht=1)


def test_chains_accept_query_and_name_the_expected_keys(movie_store: InMemoryGraphStore) -> None:
    chain = FastToGChain(
        graph=movie_store, llm=FakeListChatModel(responses=["{1}", "{x}"]), max_community_size=2
    )
    assert chain.invoke({"query": QUESTION})["question"] == QUESTION
    with pytest.raises(InvalidQuestionError, match="'question' / 'query' / 'input'.*\\['q'\\]"):
        chain.invoke({"q": QUESTION})
    with pytest.raises(InvalidQuestionError, match="got int"):
        chain.invoke({"question": 3})


def test_unknown_entity_raise_empty_or_message(movie_store: InMemoryGraphStore) -> None:
    question = "who directed [Cleopatre]"
    llm = FakeListChatModel(responses=["{1}"])
    with pytest.raises(EntityNotFoundError, match="Cleopatra"):
        FastToGRetriever(graph=movie_store, llm=llm, on_unknown_entity="raise").invoke(
            "who directed [Cleopatrr]"
        )
    (default,) = FastToGRetriever(graph=movie_store, llm=llm).invoke("who directed [Cleopatrr]")
    assert default.metadata["suggestions"][0] == "Cleopatra"  # the default: a message
    assert (
        FastToGRetriever(graph=movie_store, llm=llm, on_unknown_entity="empty").invoke(
            "who directed [Zzyzx Road]"
        )
        == []
    )
    docs = FastToGRetriever(graph=movie_store, llm=llm, on_unknown_entity="message").invoke(
        "who directed [Zzyzx Road]"
    )
    assert docs[0].metadata["error"] == "entity_not_found"
    assert "Zzyzx Road" in docs[0].page_content and "Ask again" not in question


def test_unknown_entity_message_reaches_an_agent_tool(movie_store: InMemoryGraphStore) -> None:
    from langchain_core.tools import create_retriever_tool

    retriever = FastToGRetriever(
        graph=movie_store, llm=FakeListChatModel(responses=["{1}"]), on_unknown_entity="message"
    )
    tool = create_retriever_tool(retriever, "kg", "search the movie knowledge graph")
    out = tool.invoke({"query": "who directed [Cleopatre 1963]"})
    assert "No entity named 'Cleopatre 1963'" in out and "[Cleopatra]" in out


def test_langchain_networkx_graph_is_accepted() -> None:
    graph = NetworkxEntityGraph()
    graph.add_triple(KnowledgeTriple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"))
    graph.add_triple(KnowledgeTriple("All About Eve", "directed_by", "Joseph L. Mankiewicz"))
    retriever = FastToGRetriever(
        graph=graph,
        llm=FakeListChatModel(responses=["{All About Eve}"]),  # the one candidate: no pruning call
        max_community_size=2,
    )
    assert isinstance(retriever.graph, InMemoryGraphStore)
    assert retriever.invoke(QUESTION)[0].metadata["answer"] == "All About Eve"


def test_run_names_do_not_repeat_the_method(movie_store: InMemoryGraphStore) -> None:
    names = Names()
    replies = ['["Cleopatra", "director"]', "{A: director}", "{A}", "{Joseph L. Mankiewicz}"]
    CGPEChain(graph=movie_store, llm=FakeListChatModel(responses=replies)).invoke(
        "who is the director of Cleopatra", config={"callbacks": [names]}
    )
    steps = [n for n in names.names if n and n.startswith("cgpe.")]
    assert steps and not any(n.startswith("cgpe.cgpe") for n in steps)


def test_messages_reach_a_lambda_model(movie_store: InMemoryGraphStore) -> None:
    seen: list[list[BaseMessage]] = []

    def model(messages: list[BaseMessage]) -> str:
        seen.append(messages)
        return "{1}" if len(seen) == 1 else "{All About Eve}"

    retriever = FastToGRetriever(
        graph=movie_store, llm=RunnableLambda(model), max_community_size=2, width=1, **LLM_CHOICES
    )
    assert retriever.invoke(QUESTION)[0].metadata["answer"] == "All About Eve"
    assert all(isinstance(m, BaseMessage) for m in seen[0])


def test_documents_record_how_entities_were_linked(movie_store: InMemoryGraphStore) -> None:
    retriever = FastToGRetriever(
        graph=movie_store, llm=FakeListChatModel(responses=["{1}", "{x}"]), max_community_size=2
    )
    docs = retriever.invoke("which films share the director of [cleopatra]")
    assert docs[0].metadata["entity_links"] == [
        {"mention": "cleopatra", "node": "Cleopatra", "method": "normalized", "score": 100.0}
    ]


def test_a_configurable_init_chat_model_is_accepted(movie_store: InMemoryGraphStore) -> None:
    from langchain.chat_models import init_chat_model

    model = init_chat_model(configurable_fields="any")  # no provider needed until it is called
    retriever = FastToGRetriever(graph=movie_store, llm=model)
    assert retriever.llm is model


def test_as_tool_gets_the_unknown_entity_message(movie_store: InMemoryGraphStore) -> None:
    retriever = FastToGRetriever(
        graph=movie_store, llm=FakeListChatModel(responses=["{1}"]), on_unknown_entity="message"
    )
    tool = retriever.as_tool(name="kg", description="search the movie knowledge graph")
    docs = tool.invoke({"input": "who starred in [Gaint]"})
    assert docs[0].metadata["suggestions"][0] == "Giant"


def test_a_config_of_the_wrong_type_is_a_configuration_error() -> None:
    from kgcore.methods.tog import ToGConfig

    store = InMemoryGraphStore.from_triples([("A", "r", "B")])
    with pytest.raises(ConfigurationError, match="FastToGConfig"):
        FastToGRetriever(graph=store, llm=FakeListChatModel(responses=["x"]), config=ToGConfig())
