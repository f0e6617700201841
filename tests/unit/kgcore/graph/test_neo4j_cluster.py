"""What a Neo4j cluster needs of the store, without a server: routing URIs, every retrieval in a
read transaction on a READ session, one bookmark manager for the store's reads and writes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kgcore.graph.compound import CompoundNodeView
from kgcore.graph.neo4j_store import Neo4jGraphStore
from kgcore.graph.open import _neo4j_settings

neo4j = pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")


class FakeRecord:
    def __init__(self, values: list[Any]) -> None:
        self._values = values

    def values(self) -> list[Any]:
        return self._values


class FakeResult(list):  # type: ignore[type-arg]
    def consume(self) -> None:
        return None


class FakeTransaction:
    def __init__(self, driver: FakeDriver) -> None:
        self.driver = driver

    def run(self, query: str, parameters: dict[str, Any] | None = None, **kw: Any) -> Any:
        self.driver.queries.append(query)
        return FakeResult(FakeRecord(values) for values in self.driver.answer(query))


class FakeSession:
    def __init__(self, driver: FakeDriver, config: dict[str, Any]) -> None:
        self.driver, self.config = driver, config

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def execute_read(self, work: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        self.driver.calls.append(("execute_read", self.config["default_access_mode"]))
        return work(FakeTransaction(self.driver), *args, **kw)

    def execute_write(self, work: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        self.driver.calls.append(("execute_write", self.config["default_access_mode"]))
        return work(FakeTransaction(self.driver), *args, **kw)


class FakeDriver:
    """Answers every query with a plausible row; records sessions and transactions."""

    def __init__(self) -> None:
        self.sessions: list[dict[str, Any]] = []
        self.calls: list[tuple[str, str]] = []
        self.queries: list[str] = []

    def session(self, **config: Any) -> FakeSession:
        self.sessions.append(config)
        return FakeSession(self, config)

    @staticmethod
    def answer(query: str) -> list[list[Any]]:
        if "count(n) > 0" in query:
            return [[True]]
        if "count(" in query:
            return [[3]]
        if "fulltext" in query:
            return [[[["Heat", 1.0]]]]  # one record: collect([name, score])
        if "vector.queryNodes" in query:
            return [["Heat", 1.0]]
        if "AS vector" in query:
            return [["Heat", [0.1, 0.2]]]
        if "x.text" in query:
            return [["directed_by", [0.3, 0.4]]]
        if "rows" in query:
            return [["Heat", [["Michael Mann", "directed_by", 0]]]]
        if "AS head" in query:
            return [["Heat", "directed_by", "Michael Mann"]]
        return [["Heat"]]

    def close(self) -> None:
        return None


def store_with_fake(uri: str = "neo4j://cluster.example:7687", **kwargs: Any) -> Any:
    store = Neo4jGraphStore(uri, "neo4j", "pw", verify=False, **kwargs)
    store._driver.close()
    store._driver = FakeDriver()
    return store


@pytest.mark.parametrize(
    ("uri", "routing"),
    [
        ("neo4j://cluster.example:7687", True),
        ("neo4j+s://abc.databases.neo4j.io", True),
        ("neo4j+ssc://10.0.0.1", True),
        ("bolt://single.example:7687", False),
        ("bolt+s://single.example", False),
    ],
)
def test_a_neo4j_uri_routes_and_a_bolt_uri_does_not(uri: str, routing: bool) -> None:
    store = Neo4jGraphStore(uri, "neo4j", "pw", verify=False)
    try:
        assert store.routing is routing
    finally:
        store.close()


def test_a_cluster_uri_carries_user_database_and_mapping() -> None:
    settings = _neo4j_settings("neo4j://reader@cluster.example:7687/movies?mapping=llamaindex")
    assert settings["uri"] == "neo4j://cluster.example:7687"
    assert settings["username"] == "reader" and settings["database"] == "movies"
    assert settings["mapping"].node_label == "__Entity__"


@pytest.mark.parametrize("name_search", ["copy", "fulltext", "scan"])
def test_every_retrieval_runs_in_a_read_transaction_on_a_read_session(name_search: str) -> None:
    store = store_with_fake(name_search=name_search)
    view = CompoundNodeView(store)
    store.has_node("Heat")
    store.num_nodes()
    store.num_triples()
    store.neighbors("Heat")
    store.neighbors_batch(["Heat", "Alien"], limit=4)
    store.triples_among(["Heat", "Michael Mann"])
    store.search_nodes("Heta")
    store.node_vectors(["Heat"])
    store.relation_vectors()
    store.nearest_nodes([0.1, 0.2], 3)
    view.neighbors_batch(["Heat"])
    view.triples_among(["Heat", "Michael Mann"])
    driver = store._driver
    assert driver.calls and all(
        call == ("execute_read", neo4j.READ_ACCESS) for call in driver.calls
    )
    assert all(s["default_access_mode"] == neo4j.READ_ACCESS for s in driver.sessions)
    assert all(s["bookmark_manager"] is store.bookmark_manager for s in driver.sessions)
    for query in driver.queries:  # no write clause in any retrieval query
        for clause in ("CREATE ", "MERGE ", "SET ", "DELETE ", "REMOVE "):
            assert clause not in query.upper(), query
    store.close()


def test_writes_share_the_stores_bookmark_manager_and_initial_bookmarks_are_kept() -> None:
    from kgcore.graph.neo4j_loader import ensure_schema

    store = store_with_fake(bookmarks=["FB:kcwQ"])
    assert store.bookmarks() == ["FB:kcwQ"]
    ensure_schema(store)
    writes = [s for s in store._driver.sessions if s["default_access_mode"] == neo4j.WRITE_ACCESS]
    assert writes and all(s["bookmark_manager"] is store.bookmark_manager for s in writes)
    store.close()
