"""A bounded, expiring cache of a graph server's neighbour lists (:class:`NeighborCache`).

A question's community search reads the same nodes again and again (a genre or a year shared by
the films it samples: MetaQA's "Drama", 4,176 neighbours, was read 18 times over 16 questions),
and so do concurrent questions. A Bolt store keeps what it read, keyed by node and read limit,
at most ``max_triples`` triples in all (least recently used dropped first) and each for at
most ``seconds`` seconds: the graph is the user's and may change under the store, so a change
shows within that time (a write through the store clears the cache at once). Concurrent
questions share it safely; the lock guards the table, never a read. Each time it has taken in
:data:`FREEZE_STEP` more triples they leave the cycle collector's sight
(:func:`~kgcore.concurrency.keep_out_of_collections`): a full collection walking 300,000 cached
triples held the event loop for up to 177 ms (``benchmarks/load.py``); a list dropped from the
cache is still freed.

Example
-------
>>> from kgcore.types import Triple
>>> now = [0.0]
>>> cache = NeighborCache(max_triples=3, seconds=60, clock=lambda: now[0])
>>> cache.put("Heat", None, [Triple("Heat", "directed_by", "Michael Mann")])
>>> cache.get_many(["Heat", "Giant"], None)
{'Heat': (Triple(head='Heat', relation='directed_by', tail='Michael Mann'),)}
>>> now[0] = 61.0
>>> cache.get_many(["Heat"], None)  # expired
{}
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

from kgcore.concurrency import keep_out_of_collections
from kgcore.exceptions import InvalidSettingError
from kgcore.types import Triple

__all__ = ["DEFAULT_CACHE_SECONDS", "DEFAULT_CACHE_TRIPLES", "FREEZE_STEP", "NeighborCache"]

#: Triples kept by default (about 60 MB of small Triple objects at most).
DEFAULT_CACHE_TRIPLES = 300_000
#: Seconds a neighbour list is kept by default: how stale a read may be.
DEFAULT_CACHE_SECONDS = 60.0
#: Triples taken in between two freezes (as the in-memory store's neighbour cache).
FREEZE_STEP = 10_000

_Key = tuple[str, "int | None"]


class NeighborCache:
    """Neighbour lists by ``(node, limit)``, bounded in triples and in age.

    Parameters
    ----------
    max_triples : int
        Triples kept at most (0 turns the cache off).
    seconds : float
        Age after which a list is read again (0 turns the cache off).
    """

    def __init__(
        self,
        max_triples: int = DEFAULT_CACHE_TRIPLES,
        seconds: float = DEFAULT_CACHE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(max_triples, bool) or not isinstance(max_triples, int) or max_triples < 0:
            raise InvalidSettingError(
                f"neighbor_cache_triples must be an int >= 0, got {max_triples!r}"
            )
        if not 0.0 <= float(seconds) < float("inf"):
            raise InvalidSettingError(f"neighbor_cache_seconds must be >= 0, got {seconds!r}")
        self.max_triples = max_triples
        self.seconds = float(seconds)
        self.clock = clock
        self._lists: OrderedDict[_Key, tuple[float, tuple[Triple, ...]]] = OrderedDict()
        self._size = 0
        self._unfrozen = 0
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """Whether anything is kept."""
        return self.max_triples > 0 and self.seconds > 0

    def __len__(self) -> int:
        return len(self._lists)

    def fresh(self) -> NeighborCache:
        """An empty cache with this one's bounds and clock."""
        return NeighborCache(self.max_triples, self.seconds, self.clock)

    def get_many(self, nodes: Iterable[str], limit: int | None) -> dict[str, tuple[Triple, ...]]:
        """The fresh cached lists of ``nodes`` (absent: not cached or expired)."""
        if not self.enabled:
            return {}
        found: dict[str, tuple[Triple, ...]] = {}
        oldest = self.clock() - self.seconds
        with self._lock:
            for node in nodes:
                entry = self._lists.get((node, limit))
                if entry is None:
                    continue
                if entry[0] < oldest:
                    self._drop((node, limit))
                    continue
                self._lists.move_to_end((node, limit))
                found[node] = entry[1]
        return found

    def put(self, node: str, limit: int | None, triples: Sequence[Triple]) -> None:
        """Keep ``node``'s list read with ``limit`` (a list longer than the bound is not kept)."""
        if not self.enabled or len(triples) > self.max_triples:
            return
        kept = tuple(triples)
        with self._lock:
            self._drop((node, limit))
            self._lists[(node, limit)] = (self.clock(), kept)
            self._size += len(kept)
            self._unfrozen += len(kept)
            while self._size > self.max_triples:
                _, (_, dropped) = self._lists.popitem(last=False)
                self._size -= len(dropped)
            freeze = self._unfrozen >= FREEZE_STEP
            if freeze:
                self._unfrozen = 0
        if freeze:
            keep_out_of_collections(collect=False)

    def clear(self) -> None:
        """Forget every list."""
        with self._lock:
            self._lists.clear()
            self._size = 0

    def _drop(self, key: _Key) -> None:
        entry = self._lists.pop(key, None)
        if entry is not None:
            self._size -= len(entry[1])
