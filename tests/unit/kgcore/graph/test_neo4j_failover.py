"""A store given a cluster's members reads on when one dies, without a server: fake drivers,
one per member URI, some of them dead (the driver's ``ServiceUnavailable``)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from kgcore.exceptions import ConfigurationError, GraphStoreError
from kgcore.graph.failover import MemberList, is_unavailable
from kgcore.graph.neo4j_store import MEMBER_RETRY_S, Neo4jGraphStore
from kgcore.graph.open import member_uris, open_neo4j
from tests.unit.kgcore.graph.test_neo4j_cluster import FakeDriver

neo4j = pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")

A, B, C = "bolt://h1:7687", "bolt://h2:7688", "bolt://h3:7689"


class Member(FakeDriver):
    """A member: answers like :class:`FakeDriver` until ``dead`` or ``broken`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.dead = False
        self.broken = False  # answers, but refuses every query (not an unavailability)
        self.reads = 0
        self.lock = threading.Lock()

    def session(self, **config: Any) -> Any:
        if self.dead:
            raise neo4j.exceptions.ServiceUnavailable("Couldn't connect: Connection refused")
        if self.broken:
            raise neo4j.exceptions.ClientError("Neo.ClientError.Statement.SyntaxError")
        with self.lock:
            self.reads += 1
        return super().session(**config)

    def verify_connectivity(self) -> None:
        if self.dead:
            raise neo4j.exceptions.ServiceUnavailable("Couldn't connect: Connection refused")


@pytest.fixture
def members(monkeypatch: pytest.MonkeyPatch) -> dict[str, Member]:
    """One fake member per URI; the store's drivers come from here."""
    cluster = {uri: Member() for uri in (A, B, C)}
    monkeypatch.setattr(Neo4jGraphStore, "_new_driver", lambda self: cluster[self.uri])
    return cluster


def cluster_store(**kwargs: Any) -> Neo4jGraphStore:
    return Neo4jGraphStore(None, "neo4j", "pw", members=[A, B, C], **kwargs)


def test_a_read_on_a_dead_member_runs_on_the_next_and_later_reads_stay_there(
    members: dict[str, Member],
) -> None:
    store = cluster_store()
    assert store.uri == A and store.members == (A, B, C)
    assert store.has_node("Heat")
    members[A].dead = True
    assert store.neighbors("Heat")  # answered by B
    assert store.uri == B and store._members is not None and store._members.moves == 1
    reads_on_a = members[A].reads
    for _ in range(5):
        store.num_nodes()
    assert members[A].reads == reads_on_a and members[B].reads >= 6
    store.close()


def test_after_the_last_member_the_first_is_tried_again(members: dict[str, Member]) -> None:
    store = Neo4jGraphStore(C, "neo4j", "pw", members=[A, B, C])
    assert store.uri == C
    members[C].dead = True
    store.num_nodes()
    assert store.uri == A
    store.close()


def test_a_query_the_member_refuses_is_not_moved(members: dict[str, Member]) -> None:
    store = cluster_store()
    members[A].broken = True
    with pytest.raises(GraphStoreError, match="SyntaxError"):
        store.num_nodes()
    assert store.uri == A and members[B].reads == 0
    store.close()


def test_no_member_answering_is_one_error_naming_each_member(
    members: dict[str, Member],
) -> None:
    store = cluster_store()
    for member in members.values():
        member.dead = True
    started = time.monotonic()
    with pytest.raises(GraphStoreError) as raised:
        store.num_nodes()
    assert time.monotonic() - started < 5
    message = str(raised.value)
    assert "no cluster member answered (all of them; tried 3 of 3)" in message
    assert all(uri in message for uri in (A, B, C))
    store.close()


def test_a_store_opened_while_the_first_member_is_down_starts_on_the_next(
    members: dict[str, Member],
) -> None:
    members[A].dead = True
    store = cluster_store(verify=True)
    assert store.uri == B
    assert store.num_nodes() == 3
    store.close()


def test_reads_failing_together_on_one_member_move_on_once(members: dict[str, Member]) -> None:
    store = cluster_store()
    members[A].dead = True
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def read() -> None:
        start.wait()
        try:
            store.neighbors_batch(["Heat"], limit=2)
        except BaseException as err:  # noqa: BLE001 - collected for the assertion
            errors.append(err)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors
    assert store.uri == B and store._members is not None and store._members.moves == 1
    store.close()


def test_a_store_without_members_reads_its_one_uri_and_does_not_move(
    members: dict[str, Member],
) -> None:
    store = Neo4jGraphStore(A, "neo4j", "pw", verify=False)
    assert store.members == (A,)
    members[A].dead = True
    with pytest.raises(GraphStoreError, match="Connection refused"):
        store.num_nodes()
    assert store.uri == A
    store.close()


def test_open_neo4j_takes_a_comma_separated_member_list(members: dict[str, Member]) -> None:
    store = open_neo4j(f"{A},{B}, {C}", verify=False)
    assert store.members == (A, B, C) and store.uri == A
    store.close()


def test_options_on_the_first_member_apply_to_all(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr("kgcore.graph.open.Neo4jGraphStore", lambda **kw: seen.update(kw))
    open_neo4j("bolt://reader:s3,cret@h1:7687/movies?mapping=llamaindex,bolt://h2:7688")
    assert seen["members"] == [A, B] and seen["uri"] == A
    assert seen["username"] == "reader" and seen["password"] == "s3,cret"
    assert seen["database"] == "movies" and seen["mapping"].node_label == "__Entity__"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (f"{A},neo4j://h2:7688", "mix schemes"),
        (f"{A},bolt://user@h2:7688", "give them once, on the first URI"),
        (f"{A},bolt://h2:7688/movies", "give them once, on the first URI"),
        (f"{A},bolt://h2:7688?mapping=llamaindex", "give them once, on the first URI"),
        (f"{A},{A}", "listed twice"),
    ],
)
def test_a_bad_member_list_is_refused_naming_the_problem(spec: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        open_neo4j(spec, verify=False)


def test_member_uris_splits_only_before_a_bolt_scheme() -> None:
    assert member_uris(f"{A}, {B}") == [A, B]
    assert member_uris("bolt://u:p,w@h1:7687") == ["bolt://u:p,w@h1:7687"]
    assert member_uris("neo4j+s://h1:7687,NEO4J+S://h2:7687") == [
        "neo4j+s://h1:7687",
        "NEO4J+S://h2:7687",
    ]


def test_member_list_run_stops_at_its_deadline() -> None:
    members = MemberList([A, B, C])
    used: list[str] = []

    def slow_refusal() -> None:
        time.sleep(0.3)
        raise GraphStoreError("no answer") from TimeoutError("query_timeout")

    with pytest.raises(GraphStoreError, match=r"after 0.2 s; tried 1 of 3"):
        members.run(slow_refusal, used.append, deadline=0.2)
    assert used == []


def test_member_list_refuses_empty_and_unknown_start() -> None:
    with pytest.raises(ConfigurationError, match="at least one"):
        MemberList([])
    with pytest.raises(ConfigurationError, match="not one of the members"):
        MemberList([A, B], start=C)


def test_unavailability_is_read_from_the_error_chain() -> None:
    def raised(cause: BaseException) -> GraphStoreError:
        try:
            try:
                raise cause
            except BaseException as err:
                raise GraphStoreError("read failed") from err
        except GraphStoreError as err:
            return err

    assert is_unavailable(raised(neo4j.exceptions.ServiceUnavailable("gone")))
    assert is_unavailable(raised(neo4j.exceptions.SessionExpired("gone")))
    assert is_unavailable(raised(ConnectionResetError(104, "reset")))
    assert is_unavailable(raised(TimeoutError()))
    assert not is_unavailable(raised(neo4j.exceptions.ClientError("bad query")))
    assert not is_unavailable(raised(neo4j.exceptions.AuthError("bad password")))


def test_a_member_list_shortens_the_drivers_retry_window(members: dict[str, Member]) -> None:
    listed = cluster_store()
    single = Neo4jGraphStore(A, "neo4j", "pw", verify=False)
    chosen = Neo4jGraphStore(None, "neo4j", "pw", members=[A, B], max_retry_time=3.0)
    assert listed._config["max_transaction_retry_time"] == MEMBER_RETRY_S
    assert single._config["max_transaction_retry_time"] == 5.0
    assert chosen._config["max_transaction_retry_time"] == 3.0
    for store in (listed, single, chosen):
        store.close()
