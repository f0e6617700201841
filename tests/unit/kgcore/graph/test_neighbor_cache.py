"""The Bolt store's neighbour cache: bounded in triples and in age, shared by questions,
cleared by a write through the store, and the same lists with it as without it."""

from __future__ import annotations

import pytest

from kgcore.exceptions import InvalidSettingError
from kgcore.graph.neighbor_cache import NeighborCache
from kgcore.types import Triple
from tests.unit.kgcore.graph.test_neo4j_cluster import store_with_fake

pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")


def triples(node: str, count: int) -> list[Triple]:
    return [Triple(node, "r", f"{node}{i}") for i in range(count)]


def test_the_least_recently_used_lists_go_first_past_the_triple_bound() -> None:
    cache = NeighborCache(max_triples=5, seconds=60)
    cache.put("a", None, triples("a", 2))
    cache.put("b", None, triples("b", 2))
    cache.get_many(["a"], None)  # a is used: b goes first
    cache.put("c", None, triples("c", 2))
    assert set(cache.get_many(["a", "b", "c"], None)) == {"a", "c"}
    cache.put("huge", None, triples("h", 6))  # longer than the bound: not kept
    assert "huge" not in cache.get_many(["huge"], None)


def test_a_list_is_kept_per_read_limit_and_expires() -> None:
    now = [0.0]
    cache = NeighborCache(max_triples=10, seconds=5, clock=lambda: now[0])
    cache.put("a", 1, triples("a", 1))
    assert cache.get_many(["a"], None) == {}  # read with another limit
    now[0] = 4.0
    assert len(cache.get_many(["a"], 1)["a"]) == 1
    now[0] = 6.0
    assert cache.get_many(["a"], 1) == {} and len(cache) == 0


@pytest.mark.parametrize("settings", [{"max_triples": -1}, {"seconds": -1.0}, {"max_triples": 1.5}])
def test_bad_settings_are_refused(settings: dict[str, float]) -> None:
    with pytest.raises(InvalidSettingError, match="neighbor_cache"):
        NeighborCache(**settings)  # type: ignore[arg-type]


def test_the_store_reads_a_node_once_and_again_after_a_write() -> None:
    from kgcore.graph.neo4j_loader import ensure_schema

    store = store_with_fake()
    first = store.neighbors_batch(["Heat"], limit=4)
    again = store.neighbors_batch(["Heat"], limit=4)
    assert store.queries["neighbors_limit"] == 1 and again == first  # from the cache
    again["Heat"].append(Triple("x", "y", "z"))  # a caller's list is its own
    assert store.neighbors_batch(["Heat"], limit=4) == first
    ensure_schema(store)  # a write through the store forgets what was read
    assert store.neighbors_batch(["Heat"], limit=4) == first
    assert store.queries["neighbors_limit"] == 2
    store.close()


def test_the_cache_can_be_turned_off() -> None:
    store = store_with_fake(neighbor_cache_triples=0)
    store.neighbors_batch(["Heat"])
    store.neighbors_batch(["Heat"])
    assert store.queries["neighbors"] == 2
    store.close()


def test_every_freeze_step_of_triples_leaves_the_collectors_sight(monkeypatch) -> None:
    from kgcore.graph import neighbor_cache

    freezes: list[bool] = []
    monkeypatch.setattr(
        neighbor_cache, "keep_out_of_collections", lambda collect: freezes.append(collect)
    )
    monkeypatch.setattr(neighbor_cache, "FREEZE_STEP", 4)
    cache = NeighborCache(max_triples=100, seconds=60)
    cache.put("a", None, triples("a", 3))
    assert freezes == []
    cache.put("b", None, triples("b", 2))  # 5 taken in: one freeze, no full collection
    assert freezes == [False]


def test_a_label_store_keeps_its_connections_bounds_even_when_that_cache_is_empty() -> None:
    from kgcore.graph.label_mapping import LabelMapping, LabelSpec
    from kgcore.graph.label_store import LabelGraphStore

    class Connection:
        neighbor_cache = NeighborCache(max_triples=0, seconds=5)  # the user turned it off

    mapping = LabelMapping((LabelSpec("Person", "name"),))
    store = LabelGraphStore(Connection(), mapping)
    assert (store.neighbor_cache.max_triples, store.neighbor_cache.seconds) == (0, 5.0)
    assert not store.neighbor_cache.enabled
    assert store.neighbor_cache is not Connection.neighbor_cache
