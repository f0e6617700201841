"""Neo4jGraphStore.write: its deadline, its errors and the write_timeout setting, without a
server (a paused server: tests/integration/kgcore/graph/test_neo4j_write_timeouts.py)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from kgcore.exceptions import GraphStoreError, InvalidSettingError
from kgcore.graph.neo4j_loader import ensure_schema, write_triples_to_neo4j
from kgcore.graph.neo4j_store import Neo4jGraphStore, server_refusal

neo4j = pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")
exceptions = neo4j.exceptions


class Summary:
    class counters:  # noqa: N801 - the driver's attribute name
        nodes_created = relationships_created = properties_set = labels_added = 0


class Transaction:
    def run(self, query: str, parameters: dict[str, Any] | None = None) -> Any:
        return self

    def consume(self) -> Summary:
        return Summary()


class Session:
    def __init__(self, driver: Driver) -> None:
        self.driver = driver

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute_write(self, work: Callable[..., Any], *args: Any) -> Any:
        self.driver.timeouts.append(getattr(work, "timeout", None))
        self.driver.behaviour(len(self.driver.timeouts))
        return work(Transaction(), *args)


class Driver:
    """A driver whose every write first calls ``behaviour(number_of_the_write)``."""

    def __init__(self, behaviour: Callable[[int], None]) -> None:
        self.behaviour = behaviour
        self.timeouts: list[float | None] = []
        self.sessions: list[dict[str, Any]] = []

    def session(self, **config: Any) -> Session:
        self.sessions.append(config)
        return Session(self)

    def close(self) -> None:
        return None


def store_with(behaviour: Callable[[int], None], **kwargs: Any) -> tuple[Any, Driver]:
    store = Neo4jGraphStore("bolt://127.0.0.1:1", "neo4j", "pw", verify=False, **kwargs)
    store._driver.close()
    driver = Driver(behaviour)
    store._driver = driver
    return store, driver


@pytest.mark.parametrize("value", [0, -1.0, math.nan, math.inf, 3601, "5", True, None])
def test_write_timeout_is_checked_when_the_store_is_made(value: object) -> None:
    with pytest.raises(InvalidSettingError, match="write_timeout"):
        Neo4jGraphStore("bolt://127.0.0.1:1", "neo4j", "pw", verify=False, write_timeout=value)


def test_a_write_with_no_answer_ends_in_graph_store_error_at_the_deadline() -> None:
    release = threading.Event()
    store, driver = store_with(lambda _: release.wait(30), write_timeout=0.3)
    try:
        started = time.perf_counter()
        with pytest.raises(GraphStoreError, match=r"batch 7 .* no answer within 0.3 s") as err:
            store.write(lambda tx: tx.run("CREATE ()").consume(), what="batch 7")
        assert 0.25 <= time.perf_counter() - started < 1.0
        assert "bolt://127.0.0.1:1" in str(err.value)
        assert server_refusal(err.value) is None
        assert store._driver is not driver  # a fresh driver: the next write does not queue
        assert driver.timeouts == [0.3]  # the server-side transaction timeout too
        assert driver.sessions[0]["default_access_mode"] == neo4j.WRITE_ACCESS
        assert driver.sessions[0]["bookmark_manager"] is store.bookmark_manager
        stuck = [t for t in threading.enumerate() if t.name.startswith("kg-neo4j-write")]
        assert stuck and all(t.daemon for t in stuck)  # cannot hold up the process's exit
    finally:
        release.set()
        store.close()


def _raise(error: BaseException) -> Callable[[int], None]:
    def behaviour(_: int) -> None:
        raise error

    return behaviour


@pytest.mark.parametrize(
    ("error", "refusal"),
    [
        (exceptions.ServiceUnavailable("connection refused"), None),
        (exceptions.SessionExpired("gone"), None),
        (OSError("broken pipe"), None),
        (
            exceptions.Neo4jError._hydrate_neo4j(
                code="Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
                message="timed out",
            ),
            None,
        ),
        (
            exceptions.Neo4jError._hydrate_neo4j(
                code="Neo.ClientError.Schema.ConstraintCreationFailed", message="no"
            ),
            "Neo.ClientError.Schema.ConstraintCreationFailed",
        ),
    ],
)
def test_driver_errors_become_graph_store_errors_and_only_refusals_say_so(
    error: BaseException, refusal: str | None
) -> None:
    store, _ = store_with(_raise(error))
    try:
        with pytest.raises(GraphStoreError, match="Neo4j index x failed on bolt://") as err:
            store.write(lambda tx: None, what="index x")
        assert err.value.__cause__ is error
        assert server_refusal(err.value) == refusal
    finally:
        store.close()


def test_ensure_schema_falls_back_to_an_index_only_when_the_constraint_is_refused() -> None:
    refused = exceptions.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Schema.ConstraintCreationFailed", message="no"
    )
    store, _ = store_with(lambda n: _raise(refused)(n) if n == 1 else None)
    try:
        assert ensure_schema(store) == [
            "constraint refused (Neo.ClientError.Schema.ConstraintCreationFailed)",
            "index kg_Entity_name_index",
        ]
    finally:
        store.close()
    store, driver = store_with(_raise(exceptions.ServiceUnavailable("refused")))
    try:
        with pytest.raises(GraphStoreError, match="ServiceUnavailable|refused"):
            ensure_schema(store)
        assert len(driver.timeouts) == 1  # a dead server is not a refusal: no index tried
    finally:
        store.close()


@pytest.mark.parametrize(
    ("mode", "hint"),
    [
        ("merge", "run the same load again to resume"),
        ("create", "resume with mode='merge'"),
    ],
)
def test_a_load_cut_short_says_what_was_written_and_how_to_resume(mode: str, hint: str) -> None:
    # write 1 is the schema, writes 2 and 3 the first two batches; the fourth fails.
    def behaviour(number: int) -> None:
        if number == 4:
            raise exceptions.ServiceUnavailable("server gone")

    store, _ = store_with(behaviour)
    triples = [(f"film {i}", "directed_by", f"person {i}") for i in range(25)]
    try:
        with pytest.raises(GraphStoreError) as err:
            write_triples_to_neo4j(store, triples, batch_size=10, progress=False, mode=mode)
        message = str(err.value)
        assert "write of batch 3 failed" in message and "server gone" in message
        assert "20 triples (2 batches) were written before the failure" in message
        assert hint in message
    finally:
        store.close()
