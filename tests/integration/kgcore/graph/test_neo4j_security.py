"""Hostile names never change a query, come back unchanged, and retrieval never writes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import neo4j
import pytest

from kgcore.community.sampling import sample_neighborhood
from kgcore.graph.neo4j_loader import write_triples_to_neo4j
from kgcore.graph.neo4j_store import Neo4jGraphStore
from tests.support.neo4j_testgraphs import adversarial_names, adversarial_triples, memory_store
from tests.support.neo4j_testserver import BoltServer

MakeStore = Callable[..., Neo4jGraphStore]


class SpyTransaction:
    """Records every query text and parameter set sent through a transaction."""

    def __init__(self, tx: Any, spy: SpyDriver) -> None:
        self._tx, self._spy = tx, spy

    def run(self, query: str, parameters: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        self._spy.queries.append((query, dict(parameters or {}, **kwargs)))
        return self._tx.run(query, parameters, **kwargs)


class SpySession:
    def __init__(self, session: Any, spy: SpyDriver) -> None:
        self._session, self._spy = session, spy

    def __enter__(self) -> SpySession:
        self._session.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._session.__exit__(*exc)

    def execute_read(self, work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self._spy.calls.append("execute_read")
        return self._session.execute_read(
            lambda tx, *a, **k: work(SpyTransaction(tx, self._spy), *a, **k), *args, **kwargs
        )

    def execute_write(self, *args: Any, **kwargs: Any) -> Any:
        self._spy.calls.append("execute_write")
        return self._session.execute_write(*args, **kwargs)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        self._spy.calls.append("run")
        return self._session.run(*args, **kwargs)

    def begin_transaction(self, *args: Any, **kwargs: Any) -> Any:
        self._spy.calls.append("begin_transaction")
        return self._session.begin_transaction(*args, **kwargs)


class SpyDriver:
    """Wraps a driver: which sessions were opened, how, and what ran in them."""

    def __init__(self, driver: Any) -> None:
        self._driver = driver
        self.sessions: list[dict[str, Any]] = []
        self.calls: list[str] = []
        self.queries: list[tuple[str, dict[str, Any]]] = []

    def session(self, **config: Any) -> SpySession:
        self.sessions.append(config)
        return SpySession(self._driver.session(**config), self)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)


def spy_on(store: Neo4jGraphStore) -> SpyDriver:
    spy = SpyDriver(store._driver)
    store._driver = spy
    return spy


def count_everything(store: Neo4jGraphStore) -> tuple[int, int]:
    with store.driver.session(database=store.database) as session:
        nodes = session.execute_read(lambda tx: tx.run("MATCH (n) RETURN count(n) AS c").single())
        rels = session.execute_read(
            lambda tx: tx.run("MATCH ()-[r]->() RETURN count(r) AS c").single()
        )
    return int(nodes["c"]), int(rels["c"])


def exercise(store: Neo4jGraphStore, names: list[str]) -> None:
    """Every retrieval call, with ``names`` as input."""
    short = [n for n in names if len(n) < 1000]
    store.num_nodes()
    store.num_triples()
    for name in names[:50]:
        store.has_node(name)
        store.neighbors(name, limit=3)
    store.neighbors_batch(names, limit=4)
    store.neighbors_batch(names)
    store.triples_among(names)
    for name in short[:20]:
        store.search_nodes(name, limit=3)
    sample_neighborhood(store, names[:3], radius=2, decay=0.5, seed=0)


@pytest.fixture(scope="module")
def hostile() -> tuple[list[str], list[tuple[str, str, str]]]:
    names = adversarial_names(1000)
    assert len(set(names)) == 1000
    assert sum(len(n) >= 100_000 - 1 for n in names) >= 10
    return names, [tuple(t) for t in adversarial_triples(names)]


def test_adversarial_names_load_and_come_back_unchanged(
    make_store: MakeStore,
    bolt_server: BoltServer,
    hostile: tuple[list[str], list[tuple[str, str, str]]],
    tmp_path: Path,
) -> None:
    names, triples = hostile
    path = tmp_path / "hostile.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for triple in triples:
            handle.write(json.dumps(list(triple)) + "\n")
    memory = memory_store(triples)
    store = make_store()
    before = count_everything(store)
    # Neo4j's range indexes refuse keys over about 8 KB, so on a real Neo4j the 100 KB names
    # are loaded without the name constraint; ArcadeDB indexes them.
    summary = write_triples_to_neo4j(
        store, path, batch_size=300, create_schema=bolt_server.is_arcadedb, progress=False
    )
    assert summary.nodes_created == 1000
    assert summary.relationships_created == memory.num_triples()
    after = count_everything(store)
    assert after == (before[0] + 1000, before[1] + memory.num_triples())  # nothing else written

    with store.driver.session(database=store.database) as session:
        stored = session.execute_read(
            lambda tx: [
                r["name"]
                for r in tx.run(
                    f"MATCH (n:{store.mapping.label}) RETURN n.{store.mapping.name} AS name"
                )
            ]
        )
    assert sorted(stored) == sorted(names)  # every name byte for byte, NUL and 100 KB included

    assert all(store.has_node(n) for n in names)
    assert not any(store.has_node(n + "\u0000") for n in names[:100])
    got = store.neighbors_batch(names)
    want = memory.neighbors_batch(names)
    assert {k: list(v) for k, v in got.items()} == {k: list(v) for k, v in want.items()}
    assert store.neighbors_batch(names, limit=2) == memory.neighbors_batch(names, limit=2)
    assert store.triples_among(names) == memory.triples_among(names)
    assert store.triples_among(names[::3]) == memory.triples_among(names[::3])
    for name in [n for n in names if len(n) < 200][:40]:
        assert store.search_nodes(name, limit=3) == memory.search_nodes(name, limit=3), name
    for name in [n for n in names if len(n) >= 100_000 - 1]:
        assert store.search_nodes(name, limit=1) == [name]
    for seed in (0, 1):
        kwargs = dict(radius=2, decay=0.7, max_neighbors_per_node=4, seed=seed)
        assert sample_neighborhood(store, names[:2], **kwargs) == sample_neighborhood(
            memory, names[:2], **kwargs
        )
    assert count_everything(store) == after  # retrieval wrote nothing


def test_hostile_input_never_changes_a_query_and_reads_in_read_mode(
    make_store: MakeStore, hostile: tuple[list[str], list[tuple[str, str, str]]]
) -> None:
    names, triples = hostile
    store = make_store()
    write_triples_to_neo4j(store, triples[:400], progress=False)
    before = count_everything(store)
    spy = spy_on(store)

    exercise(store, ["Heat", "Alien", "Film 001", "Year 1999"])
    benign = {query for query, _ in spy.queries}
    spy.queries.clear()
    exercise(store, names)
    hostile_texts = {query for query, _ in spy.queries}

    # The same calls send the same query texts, whatever the names: nothing is pasted in.
    assert hostile_texts <= benign <= set(store.query_texts.values())
    # The names travel as parameters, untouched.
    sent = {n for _, params in spy.queries for n in params.get("names", [])}
    assert set(names) <= sent
    # Sessions in READ access mode, work in managed read transactions only.
    assert spy.sessions and all(s["default_access_mode"] == neo4j.READ_ACCESS for s in spy.sessions)
    assert set(spy.calls) == {"execute_read"}
    store._driver = spy._driver
    assert count_everything(store) == before


def test_server_access_mode_enforcement(make_store: MakeStore, bolt_server: BoltServer) -> None:
    """Whether the server itself refuses a write in a READ transaction.

    Neo4j does (``Neo.ClientError.Statement.AccessMode``). ArcadeDB 26.10 does not: its Bolt
    plugin ignores the access mode and commits the write. This is a server difference, noted
    here; the store's guarantee (READ sessions, ``execute_read``, no write clause in any query
    text) is tested above and holds on both.
    """
    store = make_store()
    label = store.mapping.label

    def write(tx: Any) -> None:
        tx.run(f"CREATE (:{label} {{name: $name}})", name="written in a read transaction").consume()

    with store.driver.session(
        database=store.database, default_access_mode=neo4j.READ_ACCESS
    ) as session:
        if bolt_server.is_arcadedb:
            session.execute_read(write)
            assert store.num_nodes() == 1  # the known ArcadeDB difference
        else:
            with pytest.raises(neo4j.exceptions.ClientError):
                session.execute_read(write)
            assert store.num_nodes() == 0


def test_arcadedb_inline_map_parameter_lookalike_is_noted(
    make_store: MakeStore, bolt_server: BoltServer
) -> None:
    """ArcadeDB difference, noted: a string that looks like a parameter, in an inline map.

    On ArcadeDB 26.10, ``UNWIND $names AS node MATCH (n {name: node})`` does not find the node
    named ``"$names"``: a variable in an inline property map whose string value names a
    parameter is resolved as that parameter. ``WHERE n.name = node`` is unaffected, so the store
    matches names with ``WHERE`` (the same plan on Neo4j). Neo4j finds the node either way.
    """
    store = make_store()
    write_triples_to_neo4j(store, [("$names", "r", "b")], progress=False)
    label, name = store.mapping.label, store.mapping.name
    inline = f"UNWIND $names AS node MATCH (n:{label} {{{name}: node}}) RETURN n.{name} AS found"
    with store.driver.session(database=store.database) as session:
        rows = session.execute_read(lambda tx: tx.run(inline, names=["$names"]).data())
    assert rows == ([] if bolt_server.is_arcadedb else [{"found": "$names"}])
    assert store.neighbors("$names") == [("$names", "r", "b")]
    assert store.has_node("$names") and store.triples_among(["$names", "b"]) == [
        ("$names", "r", "b")
    ]
