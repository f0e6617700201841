"""LangChain's standard retriever tests (``langchain-tests``) for every retriever of the package.

The graph and the scripted model are chosen so that each retriever returns at least 3 documents:
FastToG keeps three communities at depth 1 (and its start community), CGPE explores three clue
paths, ToG keeps three triples, G-Retriever's subgraph has at least three edges.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_tests.integration_tests import RetrieversIntegrationTests

from kgcore.graph import InMemoryGraphStore
from langchain_fasttog import CGPERetriever, FastToGRetriever, GRetrieverRetriever, ToGRetriever
from tests.support.fake_embedder import FakeEmbedder

GRAPH = InMemoryGraphStore.from_triples(
    [
        ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
        ("Cleopatra", "directed_by", "Rouben Mamoulian"),
        ("Cleopatra", "directed_by", "Darryl F. Zanuck"),
        ("Cleopatra", "starred_actors", "Elizabeth Taylor"),
        ("Cleopatra", "starred_actors", "Richard Burton"),
        ("Cleopatra", "release_year", "1963"),
        ("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
        ("Giant", "starred_actors", "Elizabeth Taylor"),
        ("Becket", "starred_actors", "Richard Burton"),
        ("Charade", "release_year", "1963"),
    ]
)


class TestFastToGRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[FastToGRetriever]:
        return FastToGRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        # Each question: one pruning reply keeping three communities, one answer.
        llm = FakeListChatModel(responses=["{1, 2, 3}", "{Joseph L. Mankiewicz}"])
        return {"graph": GRAPH, "llm": llm, "max_community_size": 1, "width": 3}

    @property
    def retriever_query_example(self) -> str:
        return "who directed [Cleopatra]"


class TestCGPERetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[CGPERetriever]:
        return CGPERetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        # Clues, the relation to follow, the three directors it reaches, the answer.
        replies = ['["Cleopatra", "directed"]', "{B: directed}", "{A, B, C}", "{J. L. Mankiewicz}"]
        llm = FakeListChatModel(responses=replies)
        return {"graph": GRAPH, "llm": llm}

    @property
    def retriever_query_example(self) -> str:
        return "who directed Cleopatra"


class TestToGRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[ToGRetriever]:
        return ToGRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        # Two relations (directed by, release year), two directors of three, the answer: the
        # three triples kept are the documents.
        replies = ["{A: 0.5, B: 0.5}", "{A: 0.4, B: 0.3, C: 0.3}", "Yes {Joseph L. Mankiewicz}"]
        return {"graph": GRAPH, "llm": FakeListChatModel(responses=replies)}

    @property
    def retriever_query_example(self) -> str:
        return "who directed [Cleopatra]"


class TestGRetrieverRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[GRetrieverRetriever]:
        return GRetrieverRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        # No chat model: the subgraph's edges are the documents.
        return {"graph": GRAPH, "embeddings": FakeEmbedder(dim=64)}

    @property
    def retriever_query_example(self) -> str:
        return "who directed [Cleopatra]"
