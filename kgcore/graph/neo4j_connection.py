"""The Bolt connection a :class:`~kgcore.graph.neo4j_store.Neo4jGraphStore` reads through: the
driver, its sessions and managed transactions with their deadlines, and a cluster's members.

Connection settings come from the arguments or from ``NEO4J_URI``, ``NEO4J_USERNAME``,
``NEO4J_PASSWORD`` and ``NEO4J_DATABASE``. An unreachable server, an unknown host or wrong
credentials raise :class:`~kgcore.exceptions.GraphStoreError` naming the URI within
``connect_timeout`` seconds (4 by default, so the error comes within 5 seconds).

Every read has a deadline, ``query_timeout`` (10 s by default): it is the server-side
transaction timeout, it bounds the driver's managed-transaction retries
(``max_retry_time``, at most ``query_timeout``), and the connection itself waits no longer for
the answer, so a stalled server (connection open, no reply) or a server killed mid-run ends the
call with :class:`~kgcore.exceptions.GraphStoreError` within ``query_timeout`` seconds.
After such a timeout a fresh driver is opened, so the next call does not queue behind the
stalled connection.

Given a list of cluster members (``members=``), a read that finds its member unavailable
(connection refused or lost, or no answer within ``query_timeout``) runs again on the next
member (:mod:`kgcore.graph.failover`), each member at most once per read.

Every write transaction (:meth:`Neo4jConnection.write`: a loader batch, a schema or index
statement, a batch of vectors) has its own deadline, ``write_timeout`` (60 s by default), kept
the same way: server-side transaction timeout, retries bounded by it, and the connection waits
no longer, so a paused or killed server ends a write with
:class:`~kgcore.exceptions.GraphStoreError` within ``write_timeout`` seconds. The write is
abandoned on a daemon thread: it cannot keep the process alive, and a transaction the server
had not committed is rolled back when the connection closes.

Example
-------
>>> store = Neo4jGraphStore("bolt://127.0.0.1:7687", "neo4j", "secret")  # doctest: +SKIP
>>> store.read(lambda tx: tx.run("RETURN 1").single()[0])  # doctest: +SKIP
1
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as wait_futures
from functools import partial
from types import ModuleType, TracebackType
from typing import Any, Self, TypeVar

from kgcore.concurrency import await_io, in_awaited_run
from kgcore.exceptions import (
    ConfigurationError,
    GraphStoreError,
    InvalidSettingError,
    MissingDependencyError,
)
from kgcore.graph.failover import MemberList
from kgcore.graph.neo4j_async import AsyncReads

__all__ = ["MAX_TIMEOUT_S", "MEMBER_RETRY_S", "Neo4jConnection", "import_neo4j", "server_refusal"]

#: The driver's retry window of a store with a member list, in s: a member refusing
#: connections is left for the next one after about this long.
MEMBER_RETRY_S = 1.0
#: The longest deadline a read (``query_timeout``) or a write (``write_timeout``) may have, in s.
MAX_TIMEOUT_S = 3600.0
_T = TypeVar("_T")


def import_neo4j() -> ModuleType:
    """Import the official ``neo4j`` driver, or explain which extra installs it.

    Raises
    ------
    MissingDependencyError
        When the driver is not installed.

    Example
    -------
    >>> neo4j = import_neo4j()  # doctest: +SKIP
    """
    try:
        import neo4j
    except ImportError as err:
        raise MissingDependencyError("neo4j", "neo4j") from err
    return neo4j


class Neo4jConnection:
    """A connection to a Bolt server: the driver, sessions, managed transactions with their
    deadlines (module text), and a cluster's members.

    The parameters are those of :class:`~kgcore.graph.neo4j_store.Neo4jGraphStore` that are
    about the connection (see there); the store extends this class with the graph reads.

    Attributes
    ----------
    round_trips : int
        Queries sent (each one managed transaction) since creation or :meth:`reset_round_trips`.
    queries : collections.Counter
        The same, by query name (``"neighbors"``, ``"triples_among"``, ...).
    """

    def __init__(
        self,
        uri: str | None = None,
        username: str | None = None,
        password: str | None = None,
        database: str | None = None,
        *,
        connect_timeout: float = 4.0,
        max_retry_time: float | None = None,
        query_timeout: float = 10.0,
        write_timeout: float = 60.0,
        bookmarks: Iterable[str] | None = None,
        driver_config: Mapping[str, Any] | None = None,
        members: Sequence[str] | None = None,
    ) -> None:
        self._neo4j = import_neo4j()
        self._members = MemberList(members, start=uri) if members else None
        uri = self._members.current if self._members else uri
        self.bookmark_manager = self._neo4j.GraphDatabase.bookmark_manager(
            initial_bookmarks=list(bookmarks or ())
        )
        uri = uri or os.environ.get("NEO4J_URI")
        if not uri:
            raise ConfigurationError(
                "no Neo4j URI: pass uri= or set NEO4J_URI (for example bolt://localhost:7687)"
            )
        self.uri: str = uri
        self.username: str = username or os.environ.get("NEO4J_USERNAME") or "neo4j"
        password = password if password is not None else os.environ.get("NEO4J_PASSWORD", "")
        self.database: str | None = database or os.environ.get("NEO4J_DATABASE") or None
        if not 0 < connect_timeout <= 600:
            raise InvalidSettingError(f"connect_timeout must be in (0, 600] s: {connect_timeout}")
        for setting, value in (("query_timeout", query_timeout), ("write_timeout", write_timeout)):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidSettingError(f"{setting} must be a number of seconds: {value!r}")
            if not 0 < value <= MAX_TIMEOUT_S:  # False for NaN too
                raise InvalidSettingError(f"{setting} must be in (0, {MAX_TIMEOUT_S:g}] s: {value}")
        if max_retry_time is None:
            max_retry_time = MEMBER_RETRY_S if self._members else 5.0
        if max_retry_time < 0:
            raise InvalidSettingError(f"max_retry_time must be >= 0 s: {max_retry_time}")
        self.connect_timeout = float(connect_timeout)
        self.query_timeout = float(query_timeout)
        self.write_timeout = float(write_timeout)
        self.round_trips = 0
        self.queries: Counter[str] = Counter()
        config: dict[str, Any] = {
            "connection_timeout": self.connect_timeout,
            "connection_acquisition_timeout": self.connect_timeout,
            "max_transaction_retry_time": min(float(max_retry_time), self.query_timeout),
            "user_agent": "kg-retrievers",
        }
        config.update(driver_config or {})
        self._auth = (self.username, password)
        self._config = config
        self._driver_lock = threading.Lock()
        # Reads run on these threads so the caller can stop waiting at the deadline: the
        # driver has no client-side read timeout of its own (only a server hint).
        self._pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="kg-neo4j")
        self._driver = self._new_driver()
        self.async_reads = AsyncReads(self)

    # -- connection -------------------------------------------------------------------
    def _new_driver(self) -> Any:
        try:
            return self._neo4j.GraphDatabase.driver(self.uri, auth=self._auth, **self._config)
        except (ValueError, self._neo4j.exceptions.ConfigurationError) as err:
            raise GraphStoreError(f"invalid Neo4j URI or settings {self.uri!r}: {err}") from err

    def _replace_driver(self, stalled: Any) -> None:
        """Swap in a fresh driver; close the stalled one in the background."""
        with self._driver_lock:
            if self._driver is stalled:
                self._driver = self._new_driver()
        threading.Thread(target=_close_quietly, args=(stalled,), daemon=True).start()

    @property
    def driver(self) -> Any:
        """The underlying ``neo4j.Driver``."""
        return self._driver

    @property
    def members(self) -> tuple[str, ...]:
        """The URIs reads may go to: the member list, or the one URI."""
        return self._members.members if self._members else (self.uri,)

    def _use_member(self, uri: str) -> None:
        """Read from the member ``uri`` from now on (a fresh driver; the old one is closed in
        the background)."""
        with self._driver_lock:
            old, self.uri = self._driver, uri
            self._driver = self._new_driver()
        threading.Thread(target=_close_quietly, args=(old,), daemon=True).start()

    def _on_member(self, attempt: Callable[[], _T]) -> _T:
        """``attempt()``, moved to the next member while members are unavailable."""
        if self._members is None:
            return attempt()
        deadline = self.query_timeout * len(self._members)
        return self._members.run(attempt, self._use_member, deadline)

    @property
    def routing(self) -> bool:
        """Whether the URI routes (``neo4j://``: a cluster's reads go to its readers)."""
        return self.uri.split("://", 1)[0].startswith("neo4j")

    def session(self, write: bool = False, **config: Any) -> Any:
        """A driver session on the store's database: READ access unless ``write``, with the
        store's bookmark manager (reads see the store's own writes, on a cluster too)."""
        neo4j = self._neo4j
        mode = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS
        return self._driver.session(
            database=self.database,
            default_access_mode=mode,
            bookmark_manager=self.bookmark_manager,
            **config,
        )

    def bookmarks(self) -> list[str]:
        """The bookmarks of the store's writes so far (give them to a store in another
        process: ``Neo4jGraphStore(bookmarks=...)``)."""
        return sorted(self.bookmark_manager.get_bookmarks())

    def write(self, work: Callable[..., _T], *args: Any, what: str = "write") -> _T:
        """Run ``work(tx, *args)`` in one managed WRITE transaction, within ``write_timeout``.

        The transaction runs on a session of its own (WRITE access, the store's bookmark
        manager) with ``write_timeout`` as its server-side timeout, and the store waits at most
        ``write_timeout`` seconds for it, retries on transient errors included. A write that
        gets no answer in time is abandoned (on a daemon thread, so it cannot keep the process
        alive) and the store opens a fresh driver.

        Parameters
        ----------
        work : callable
            ``work(tx, *args)``: runs the queries on the transaction ``tx`` and consumes them.
        *args
            Passed on to ``work``.
        what : str
            What is written, for the error message (``"batch 3"``, ``"constraint ..."``).

        Raises
        ------
        GraphStoreError
            The server failed, refused the statement (see :func:`server_refusal`) or gave no
            answer within ``write_timeout`` seconds; the message names the URI and ``what``.

        Example
        -------
        >>> store.write(lambda tx: tx.run("CREATE (:Note {text: $t})", t="x").consume(),
        ...             what="note")  # doctest: +SKIP
        """
        return self._transaction(work, args, what, write=True)

    def read(self, work: Callable[..., _T], *args: Any, what: str = "read") -> _T:
        """Run ``work(tx, *args)`` in one managed READ transaction, within ``query_timeout``:
        for reads that are not one of the store's named queries (those of
        :mod:`kgcore.gretriever.store_vectors`); the same contract as :meth:`write`.

        Example
        -------
        >>> store.read(lambda tx: tx.run("RETURN 1").single()[0])  # doctest: +SKIP
        1
        """
        return self._on_member(lambda: self._transaction(work, args, what, write=False))

    def _transaction(
        self, work: Callable[..., _T], args: tuple[Any, ...], what: str, *, write: bool
    ) -> _T:
        """One managed transaction on a daemon thread; the caller waits until the deadline."""
        neo4j = self._neo4j
        driver = self._driver
        timeout = self.write_timeout if write else self.query_timeout
        setting = "write_timeout" if write else "query_timeout"

        @neo4j.unit_of_work(timeout=timeout)
        def unit(tx: Any, *unit_args: Any) -> _T:
            return work(tx, *unit_args)

        def run() -> _T:
            with driver.session(
                database=self.database,
                default_access_mode=neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS,
                bookmark_manager=self.bookmark_manager,
            ) as session:
                execute = session.execute_write if write else session.execute_read
                result: _T = execute(unit, *args)
                return result

        future = _in_daemon_thread(run, name=f"kg-neo4j-{'write' if write else 'read'}")
        if not wait_futures([future], timeout=timeout).done:
            self._replace_driver(driver)
            raise self.no_answer(what, setting) from TimeoutError(f"{setting} {timeout:g} s")
        try:
            return future.result()
        except self.failures as err:
            raise self.failed(what, err) from err

    @property
    def where(self) -> str:
        """The server (and database) that errors name."""
        return f"{self.uri} (database {self.database!r})" if self.database else self.uri

    @property
    def failures(self) -> tuple[type[BaseException], ...]:
        """The driver's errors that a read or write reports as :class:`GraphStoreError`."""
        exceptions = self._neo4j.exceptions
        return (exceptions.Neo4jError, exceptions.DriverError, OSError, ValueError)

    def failed(self, what: str, error: BaseException) -> GraphStoreError:
        """The error for ``what`` (a read or write) that ended with the driver's ``error``."""
        if isinstance(error, self._neo4j.exceptions.AuthError):
            return GraphStoreError(
                f"Neo4j at {self.uri} refused the credentials of user {self.username!r}: {error}"
            )
        return GraphStoreError(f"Neo4j {what} failed on {self.where}: {error}")

    def no_answer(self, what: str, setting: str = "query_timeout") -> GraphStoreError:
        """The error for ``what`` that got no answer within the deadline ``setting``."""
        timeout = self.write_timeout if setting == "write_timeout" else self.query_timeout
        return GraphStoreError(
            f"Neo4j {what} on {self.where} got no answer within {timeout:g} s ({setting}): "
            "the server is stalled or gone"
        )

    def verify(self) -> None:
        """Check that the server answers and accepts the credentials.

        Raises
        ------
        GraphStoreError
            Naming the URI, when the server is unreachable or refuses the credentials.
        """
        exceptions = self._neo4j.exceptions
        try:
            self._driver.verify_connectivity()
        except exceptions.AuthError as err:
            raise GraphStoreError(
                f"Neo4j at {self.uri} refused the credentials of user {self.username!r} "
                f"(check NEO4J_USERNAME / NEO4J_PASSWORD): {err.message or err}"
            ) from err
        except (exceptions.Neo4jError, exceptions.DriverError, OSError, ValueError) as err:
            # ValueError: the driver's "Cannot resolve address" for an unknown host
            raise GraphStoreError(
                f"cannot reach Neo4j at {self.uri} within {self.connect_timeout:g} s: {err}"
            ) from err

    def close(self) -> None:
        """Close the driver and its connections."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.async_reads.forget()
        self._driver.close()

    async def aclose(self) -> None:
        """Close the running event loop's ``AsyncDriver`` (the synchronous driver stays)."""
        await self.async_reads.aclose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def reset_round_trips(self) -> None:
        """Zero :attr:`round_trips` and :attr:`queries`."""
        self.round_trips = 0
        self.queries.clear()

    def read_named(self, kind: str, query: str, params: dict[str, Any]) -> list[Any]:
        """Run the read ``query`` (counted as ``kind`` in :attr:`queries`) in one managed READ
        transaction; the records' values.

        Ends with :class:`GraphStoreError` within ``query_timeout`` seconds whatever the
        server does (on each member tried, given a member list).
        """
        if in_awaited_run():  # awaited through the AsyncDriver (kgcore.graph.neo4j_async)
            return self._on_member(lambda: await_io(self.async_reads.read(kind, query, params)))
        return self._on_member(partial(self._read_member, kind, query, params))

    def _read_member(self, kind: str, query: str, params: dict[str, Any]) -> list[Any]:
        """:meth:`read_named` on the current member."""
        driver = self._driver
        future = self._pool.submit(self._read_now, driver, kind, query, params)
        try:
            return future.result(timeout=self.query_timeout)
        except FutureTimeout:
            future.cancel()
            self._replace_driver(driver)
            raise self.no_answer(f"query {kind!r}") from None

    def _read_now(self, driver: Any, kind: str, query: str, params: dict[str, Any]) -> list[Any]:
        neo4j = self._neo4j

        # The server-side transaction timeout: a query running too long is stopped there.
        @neo4j.unit_of_work(timeout=self.query_timeout)
        def work(tx: Any) -> list[Any]:
            self.round_trips += 1
            self.queries[kind] += 1
            return [record.values() for record in tx.run(query, params)]

        try:
            with driver.session(
                database=self.database,
                default_access_mode=neo4j.READ_ACCESS,
                bookmark_manager=self.bookmark_manager,
                fetch_size=-1,
            ) as session:
                return list(session.execute_read(work))
        except self.failures as err:
            raise self.failed(f"query {kind!r}", err) from err


def server_refusal(error: BaseException) -> str | None:
    """The server's error code when ``error`` (a :class:`GraphStoreError` from
    :meth:`Neo4jGraphStore.write`) is the server refusing the statement, else ``None`` (the
    server failed, timed out or could not be reached).

    Example
    -------
    >>> server_refusal(GraphStoreError("no answer within 60 s")) is None
    True
    """
    cause = error.__cause__
    if cause is None:
        return None
    neo4j = import_neo4j()
    if not isinstance(cause, neo4j.exceptions.Neo4jError) or isinstance(
        cause, neo4j.exceptions.TransientError
    ):
        return None
    code = str(cause.code or "")
    return None if "TimedOut" in code or "Terminated" in code else code or "refused"


def _in_daemon_thread(function: Callable[[], _T], name: str) -> Future[_T]:
    """Start ``function`` on a daemon thread; its future. Unlike a pool's thread, a daemon
    thread blocked on a stalled socket does not hold up the interpreter's exit."""
    future: Future[_T] = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(function())
        except BaseException as err:  # noqa: BLE001 - handed to the waiting caller
            future.set_exception(err)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


def _close_quietly(driver: Any) -> None:
    try:
        driver.close()
    except Exception:  # noqa: BLE001 - a stalled driver may fail to close; it is dropped anyway
        pass
