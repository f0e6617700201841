"""Reads that go on when a cluster member dies: a list of members, tried in turn.

A store given several members (``Neo4jGraphStore(members=[...])``, or ``--kg
bolt://h1:7687,bolt://h2:7688,bolt://h3:7689``) reads from one of them, the current member.
When a read fails because that member is unavailable (refused or lost connection, the
driver's ``ServiceUnavailable`` or ``SessionExpired``, or no answer within the read's
deadline: the member is dead, stalled or cut off), the store moves to the next member in the
list (after the last, the first again) and runs the same read there. A read tries each member
at most once and ends within its deadline (``query_timeout`` for each member tried), with
:class:`~kgcore.exceptions.GraphStoreError` naming every member tried when none answered. Any
other failure (a query the server refuses, wrong credentials) ends the read at once: another
member would answer the same.

Moving on is shared by the threads of a store: the first read that finds the current member
gone moves everyone to the next one, and the reads that failed on the same member at the same
time retry there rather than moving again.

This is for servers that do not route (``bolt://`` members of a cluster, or read replicas loaded
alike). On a cluster whose servers route, a ``neo4j://`` URI lets the driver route reads to
the members itself (see ``docs/neo4j.md``, Clusters).

Example
-------
>>> members = MemberList(["bolt://h1:7687", "bolt://h2:7688"])
>>> members.current
'bolt://h1:7687'
>>> members.advance("bolt://h1:7687", lambda uri: None)
'bolt://h2:7688'
>>> members.advance("bolt://h1:7687", lambda uri: None)  # already moved on: stays
'bolt://h2:7688'
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from kgcore.exceptions import ConfigurationError, GraphStoreError

__all__ = ["MemberList", "is_unavailable"]

_T = TypeVar("_T")
_LOG = logging.getLogger(__name__)
#: The driver's errors that say a member cannot be reached (by class name, so this module needs
#: no driver): connection refused or lost, no server to route to, a session's server gone.
UNAVAILABLE_DRIVER_ERRORS = ("ServiceUnavailable", "SessionExpired")


def _chain(error: BaseException) -> Iterable[BaseException]:
    """``error`` and the errors it was raised from or while handling, once each."""
    seen: set[int] = set()
    todo = [error]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)


def is_unavailable(error: BaseException) -> bool:
    """Whether ``error`` says the member is unavailable (so another member may answer).

    True when it or an error it came from is a connection error or a timeout (``OSError``:
    ``ConnectionError``, ``TimeoutError``) or one of the driver's
    :data:`UNAVAILABLE_DRIVER_ERRORS` (or a subclass of one).

    Example
    -------
    >>> try:
    ...     try:
    ...         raise ConnectionRefusedError(111, "Connection refused")
    ...     except OSError as err:
    ...         raise GraphStoreError("Neo4j query failed") from err
    ... except GraphStoreError as err:
    ...     is_unavailable(err)
    True
    >>> is_unavailable(GraphStoreError("Neo.ClientError.Statement.SyntaxError"))
    False
    """
    for cause in _chain(error):
        if isinstance(cause, OSError):
            return True
        names = {cls.__name__ for cls in type(cause).__mro__}
        if names.intersection(UNAVAILABLE_DRIVER_ERRORS):
            return True
    return False


class MemberList:
    """The members a store reads from, the current one, and moving on when it is gone.

    Parameters
    ----------
    members : sequence of str
        The members' URIs, in the order they are tried; at least one, no repeats.
    start : str, optional
        The member read first (default: the first).

    Attributes
    ----------
    moves : int
        How often the store moved to the next member.

    Raises
    ------
    ConfigurationError
        For an empty list, a repeated member, or a ``start`` that is not a member.
    """

    def __init__(self, members: Sequence[str], start: str | None = None) -> None:
        uris = [str(m).strip() for m in members]
        if not uris or not all(uris):
            raise ConfigurationError("a member list needs at least one member URI, none empty")
        repeated = sorted({m for m in uris if uris.count(m) > 1})
        if repeated:
            raise ConfigurationError(f"cluster member listed twice: {', '.join(repeated)}")
        if start is not None and start not in uris:
            raise ConfigurationError(f"{start!r} is not one of the members {uris}")
        self.members: tuple[str, ...] = tuple(uris)
        self._index = uris.index(start) if start is not None else 0
        self._lock = threading.Lock()
        self.moves = 0

    def __len__(self) -> int:
        return len(self.members)

    def __repr__(self) -> str:
        return f"MemberList({list(self.members)!r}, current={self.current!r})"

    @property
    def current(self) -> str:
        """The member reads go to now."""
        return self.members[self._index]

    def advance(self, failed: str, use: Callable[[str], None]) -> str:
        """Move past ``failed`` if it is still the current member; the member to use now.

        ``use(uri)`` is called (under the list's lock) with the new member, so the store
        switches its connection before any other thread reads; when another thread has moved
        on already, nothing changes.
        """
        with self._lock:
            if self.members[self._index] == failed and len(self.members) > 1:
                following = (self._index + 1) % len(self.members)
                use(self.members[following])
                self._index = following
                self.moves += 1
                _LOG.warning(
                    "graph store member %s is unavailable: reading from %s",
                    failed,
                    self.members[following],
                )
            return self.members[self._index]

    def run(self, attempt: Callable[[], _T], use: Callable[[str], None], deadline: float) -> _T:
        """``attempt()`` on the current member, then on the next ones while members are
        unavailable.

        Parameters
        ----------
        attempt : callable
            Runs the read on the current member; raises :class:`GraphStoreError` when it fails.
        use : callable
            ``use(uri)`` switches the store to the member ``uri``.
        deadline : float
            Seconds after which no further member is tried.

        Raises
        ------
        GraphStoreError
            At once, for a failure that is not unavailability; else when every member was
            tried once, or at the deadline, naming each member tried and what it said.
        """
        started = time.monotonic()
        failures: list[tuple[str, GraphStoreError]] = []
        while True:
            member = self.current
            try:
                return attempt()
            except GraphStoreError as err:
                if not is_unavailable(err):
                    raise
                failures.append((member, err))
                tried = len({m for m, _ in failures})
                late = time.monotonic() - started >= deadline
                if tried >= len(self.members) or late:
                    said = "; ".join(f"{m}: {str(e).splitlines()[0]}" for m, e in failures)
                    why = f"after {deadline:g} s" if late else "all of them"
                    raise GraphStoreError(
                        f"no cluster member answered ({why}; tried {tried} of "
                        f"{len(self.members)}): {said}"
                    ) from err
                self.advance(member, use)
