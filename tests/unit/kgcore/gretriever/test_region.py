from __future__ import annotations

import numpy as np
import pytest

from kgcore.exceptions import ConfigurationError, EntityNotFoundError
from kgcore.graph import InMemoryGraphStore
from kgcore.gretriever import expand_region, link_entities


class CountingStore(InMemoryGraphStore):
    def __init__(self) -> None:
        super().__init__()
        self.batch_calls = 0

    def neighbors_batch(self, nodes, limit=None):  # type: ignore[no-untyped-def]
        self.batch_calls += 1
        return super().neighbors_batch(nodes, limit)


@pytest.fixture
def star_store() -> CountingStore:
    store = CountingStore()
    store.add_triples([("hub", "r", f"leaf{i}") for i in range(10)])
    store.add_triples([("leaf0", "s", "far"), ("far", "s", "farther")])
    return store


def test_region_grows_by_hops_with_one_batch_call_per_hop(star_store: CountingStore) -> None:
    region = expand_region(star_store, ["hub"], hops=2, max_nodes=100)
    assert set(region.nodes) == {"hub", "far"} | {f"leaf{i}" for i in range(10)}
    assert star_store.batch_calls == 2
    assert not region.truncated
    assert ("leaf0", "s", "far") in region.triples


def test_cap_keeps_the_best_scored_new_nodes(star_store: CountingStore) -> None:
    def scorer(names):  # prefer leaf7 and leaf3
        return np.array([1.0 if n in ("leaf7", "leaf3") else 0.0 for n in names])

    region = expand_region(star_store, ["hub"], hops=1, max_nodes=3, scorer=scorer)
    assert set(region.nodes) == {"hub", "leaf3", "leaf7"}
    assert region.truncated


def test_neighbor_limit_caps_each_node(star_store: CountingStore) -> None:
    region = expand_region(star_store, ["hub"], hops=1, max_nodes=100, neighbor_limit=2)
    assert len(region.nodes) == 3


def test_unknown_seeds_are_skipped_and_zero_hops_keep_seeds(star_store: CountingStore) -> None:
    region = expand_region(star_store, ["nobody", "far"], hops=0, max_nodes=5)
    assert region.nodes == ("far",) and region.triples == ()


def test_bad_region_settings_are_rejected(star_store: CountingStore) -> None:
    with pytest.raises(ConfigurationError):
        expand_region(star_store, ["hub"], hops=-1)
    with pytest.raises(ConfigurationError):
        expand_region(star_store, ["hub"], max_nodes=0)


def test_entities_link_exactly_or_fuzzily(star_store: CountingStore) -> None:
    assert link_entities(star_store, ["HUB", "far"]) == ["hub", "far"]
    with pytest.raises(EntityNotFoundError):
        link_entities(InMemoryGraphStore(), ["anything"])
    with pytest.raises(EntityNotFoundError, match="'qqqq xxxx' is not in .*closest names"):
        link_entities(star_store, ["qqqq xxxx"])  # refused, not linked to a poor fuzzy match
