"""A :class:`~kgcore.graph.store.GraphStore` on a Neo4j server (or any Bolt server speaking Cypher).

Every query is parameterised: names and relations travel as Bolt parameters, never in the query
text. The only identifiers in the text are the label, property and relationship type names of the
:class:`GraphMapping`, which are validated and backquoted once, when the store is built, so the
query texts are fixed for the store's lifetime. The texts are built in
:mod:`kgcore.graph.neo4j_queries` (with :class:`GraphMapping`), the full-text name search in
:mod:`kgcore.graph.neo4j_fulltext`; this module holds the driver, its sessions and
transactions with their deadlines, and the :class:`~kgcore.graph.store.GraphStore` reads.

Retrieval runs in managed read transactions (``session.execute_read`` on sessions opened in READ
access mode), so a cluster routes it to readers and a server that enforces access modes refuses
any write. A whole frontier is fetched by one query (``UNWIND $names``), at most ``limit``
neighbours per node in the canonical order of :func:`kgcore.types.neighbor_sort_key` (other
endpoint's name, relation, outgoing before incoming). Sampling itself is done by the shared core
(:func:`kgcore.community.sampling.sample_neighborhood`), so this store and
:class:`~kgcore.graph.memory.InMemoryGraphStore` give identical subgraphs for a seed.

Connection settings come from the arguments or from ``NEO4J_URI``, ``NEO4J_USERNAME``,
``NEO4J_PASSWORD`` and ``NEO4J_DATABASE``. An unreachable server, an unknown host or wrong
credentials raise :class:`~kgcore.exceptions.GraphStoreError` naming the URI within
``connect_timeout`` seconds (4 by default, so the error comes within 5 seconds).

Every read has a deadline, ``query_timeout`` (10 s by default): it is the server-side
transaction timeout, it bounds the driver's managed-transaction retries
(``max_retry_time``, at most ``query_timeout``), and the store itself waits no longer for the
answer, so a stalled server (connection open, no reply) or a server killed mid-run ends the
call with :class:`~kgcore.exceptions.GraphStoreError` within ``query_timeout`` seconds.
After such a timeout the store opens a fresh driver, so the next call does not queue behind
the stalled connection.

Given a list of cluster members (``members=``), a read that finds its member unavailable
(connection refused or lost, or no answer within ``query_timeout``) runs again on the next
member (:mod:`kgcore.graph.failover`), each member at most once per read.

Every write transaction (:meth:`Neo4jGraphStore.write`: a loader batch, a schema or index
statement, a batch of vectors) has its own deadline, ``write_timeout`` (60 s by default), kept
the same way: server-side transaction timeout, retries bounded by it, and the store waits no
longer, so a paused or killed server ends a write with
:class:`~kgcore.exceptions.GraphStoreError` within ``write_timeout`` seconds. The write is
abandoned on a daemon thread: it cannot keep the process alive, and a transaction the server
had not committed is rolled back when the connection closes.

Example
-------
>>> store = Neo4jGraphStore("bolt://127.0.0.1:7687", "neo4j", "secret")  # doctest: +SKIP
>>> store.neighbors("Cleopatra", limit=2)  # doctest: +SKIP
[Triple(head='Cleopatra', relation='release_year', tail='1963'), ...]
>>> store.round_trips  # doctest: +SKIP
2
"""

from __future__ import annotations

import copy
import os
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as wait_futures
from functools import partial
from types import ModuleType, TracebackType
from typing import Any, TypeVar

from kgcore.exceptions import (
    ConfigurationError,
    GraphStoreError,
    InvalidSettingError,
    MissingDependencyError,
)
from kgcore.graph.failover import MemberList
from kgcore.graph.names import normalize_name, rank_names
from kgcore.graph.neo4j_fulltext import (
    FULLTEXT_CANDIDATES,
    FULLTEXT_QUERY_CHARS,
    FULLTEXT_QUERY_WORDS,
    FULLTEXT_VARIANT_TERMS,
    VARIANT_ALPHABET,
    case_forms,
    fulltext_names,
    fulltext_words,
    loose_words,
    spelling_variants,
    variants_query,
)
from kgcore.graph.neo4j_queries import (
    DEFAULT_MAPPING,
    LLAMAINDEX_MAPPING,
    RELATION_VECTOR_LABEL,
    GraphMapping,
    cypher_identifier,
    index_name,
    read_queries,
)
from kgcore.graph.store import check_limit
from kgcore.types import Triple, neighbor_sort_key

__all__ = [
    "DEFAULT_MAPPING",
    "FULLTEXT_CANDIDATES",
    "FULLTEXT_QUERY_CHARS",
    "FULLTEXT_QUERY_WORDS",
    "FULLTEXT_VARIANT_TERMS",
    "LLAMAINDEX_MAPPING",
    "MAX_TIMEOUT_S",
    "NAME_SEARCHES",
    "RELATION_VECTOR_LABEL",
    "VARIANT_ALPHABET",
    "GraphMapping",
    "Neo4jGraphStore",
    "case_forms",
    "cypher_identifier",
    "fulltext_words",
    "import_neo4j",
    "index_name",
    "loose_words",
    "server_refusal",
    "spelling_variants",
    "variants_query",
]

#: How :meth:`Neo4jGraphStore.search_nodes` finds candidate names (``name_search``).
NAME_SEARCHES = ("auto", "copy", "fulltext", "scan")
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


class Neo4jGraphStore:
    """A knowledge graph held in Neo4j, read over Bolt with the official driver.

    Parameters
    ----------
    uri : str, optional
        ``bolt://``, ``neo4j://`` (routing) or their ``+s``/``+ssc`` forms; default
        ``$NEO4J_URI``.
    username, password : str, optional
        Default ``$NEO4J_USERNAME`` (else ``"neo4j"``) and ``$NEO4J_PASSWORD``.
    database : str, optional
        Default ``$NEO4J_DATABASE``, else the server's default database.
    mapping : GraphMapping
        How triples are laid out; :data:`DEFAULT_MAPPING` or :data:`LLAMAINDEX_MAPPING`.
    connect_timeout : float
        Seconds to wait for a connection (and for the check made on start-up); the default
        of 4 leaves a second of slack, so a dead server is reported within 5 seconds.
    max_retry_time : float, optional
        Seconds a managed read transaction retries transient failures (the driver's
        ``max_transaction_retry_time``); capped at ``query_timeout``. Default 5, or 1 with
        ``members`` (a member that refuses connections is left for the next one sooner).
    query_timeout : float
        Deadline of one read in seconds (0 < t <= 3600): server-side transaction timeout and
        the longest the store waits for an answer before raising :class:`GraphStoreError`.
    write_timeout : float
        Deadline of one write transaction in seconds (0 < t <= 3600; a loader batch, a schema
        or index statement): server-side transaction timeout and the longest the store waits
        for the commit before raising :class:`GraphStoreError`. Raise it for very large
        batches or a slow server.
    name_search : {"auto", "copy", "fulltext", "scan"}
        How :meth:`search_nodes` (and so fuzzy entity linking) finds candidate names.
        ``"copy"``: all names are copied once (one query) and ranked exactly as in memory;
        ``"fulltext"``: the server's full-text index (:mod:`kgcore.graph.neo4j_indexes`)
        returns its best-scored :data:`FULLTEXT_CANDIDATES` names, ranked by the same rule, so
        the client's cost does not grow with the graph; ``"scan"``: names holding a word of the
        text, found by a scan of every name. ``"auto"`` copies up to ``name_cache_limit``
        nodes, above it uses the full-text index when the server has it, else scans (and
        warns once, naming ``kgqa load --create-indexes``).
    name_cache_limit : int
        The largest graph whose names ``name_search="auto"`` copies.
    bookmarks : iterable of str, optional
        Bookmarks of writes made elsewhere (``LoadSummary.bookmarks`` of a load run by another
        process): on a cluster, the first reads wait until the server that answers them has
        those writes. Within one process every session of the store shares one bookmark
        manager, so reads after the store's own writes (the loader's) always see them.
    verify : bool
        Check the connection and credentials now (raises :class:`GraphStoreError`).
    driver_config : dict, optional
        Further keyword arguments for ``neo4j.GraphDatabase.driver``.
    members : sequence of str, optional
        The URIs of a cluster's members (same credentials and database): reads go to one
        (``uri``, default the first) and move to the next when it is unavailable (connection
        refused or lost, no answer within ``query_timeout``), each member at most once per
        read (:mod:`kgcore.graph.failover`). Writes go to the current member and are not
        moved: load through the leader.

    Attributes
    ----------
    round_trips : int
        Queries sent (each one managed transaction) since creation or :meth:`reset_round_trips`.
    queries : collections.Counter
        The same, by query name (``"neighbors"``, ``"triples_among"``, ...).

    Example
    -------
    >>> with Neo4jGraphStore("bolt://127.0.0.1:7687", "neo4j", "pw") as store:  # doctest: +SKIP
    ...     batch = store.neighbors_batch(["Cleopatra", "Heat"], limit=32)
    ...     store.round_trips
    1
    """

    def __init__(
        self,
        uri: str | None = None,
        username: str | None = None,
        password: str | None = None,
        database: str | None = None,
        *,
        mapping: GraphMapping = DEFAULT_MAPPING,
        connect_timeout: float = 4.0,
        max_retry_time: float | None = None,
        query_timeout: float = 10.0,
        write_timeout: float = 60.0,
        name_search: str = "auto",
        name_cache_limit: int = 200_000,
        bookmarks: Iterable[str] | None = None,
        verify: bool = True,
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
        self.mapping = mapping
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
        self.name_cache_limit = int(name_cache_limit)
        if name_search not in NAME_SEARCHES:
            raise InvalidSettingError(
                f"name_search must be one of {', '.join(NAME_SEARCHES)}, got {name_search!r}"
            )
        self.name_search = name_search
        self._fulltext: bool | None = None  # whether the full-text index answered
        self.round_trips = 0
        self.queries: Counter[str] = Counter()
        self._name_cache: tuple[dict[str, list[str]], list[str]] | None = None
        self._too_many_names: bool | None = None
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
        self._q = read_queries(mapping)  # fixed for the store's lifetime
        if verify:
            try:
                self._on_member(self.verify)
            except GraphStoreError:
                self.close()
                raise

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

    def with_mapping(self, mapping: GraphMapping) -> Neo4jGraphStore:
        """This store's connection read through another layout (the driver is shared: close
        one of the two)."""
        other = copy.copy(self)
        other.mapping = mapping
        other._q = read_queries(mapping)
        other.queries = Counter()
        other._name_cache = other._too_many_names = other._fulltext = None
        return other

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

        where = f"{self.uri} (database {self.database!r})" if self.database else self.uri
        future = _in_daemon_thread(run, name=f"kg-neo4j-{'write' if write else 'read'}")
        if not wait_futures([future], timeout=timeout).done:
            self._replace_driver(driver)
            raise GraphStoreError(
                f"Neo4j {what} on {where} got no answer within {timeout:g} s ({setting}): "
                "the server is stalled or gone"
            ) from TimeoutError(f"{setting} {timeout:g} s")
        exceptions = neo4j.exceptions
        try:
            return future.result()
        except exceptions.AuthError as err:
            raise GraphStoreError(
                f"Neo4j at {self.uri} refused the credentials of user {self.username!r}: {err}"
            ) from err
        except (exceptions.Neo4jError, exceptions.DriverError, OSError, ValueError) as err:
            raise GraphStoreError(f"Neo4j {what} failed on {where}: {err}") from err

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
        self._driver.close()

    def __enter__(self) -> Neo4jGraphStore:
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

    # -- queries ------------------------------------------------------------------------
    @property
    def query_texts(self) -> Mapping[str, str]:
        """Every Cypher text this store sends, by name (fixed once the store is built)."""
        return dict(self._q)

    def _read(self, kind: str, **params: Any) -> list[Any]:
        """Run one named read query in a managed READ transaction; the records' values.

        Ends with :class:`GraphStoreError` within ``query_timeout`` seconds whatever the
        server does (on each member tried, given a member list).
        """
        return self._on_member(partial(self._read_member, kind, params))

    def _read_member(self, kind: str, params: dict[str, Any]) -> list[Any]:
        """:meth:`_read` on the current member."""
        driver = self._driver
        future = self._pool.submit(self._read_now, driver, kind, params)
        try:
            return future.result(timeout=self.query_timeout)
        except FutureTimeout:
            future.cancel()
            self._replace_driver(driver)
            where = f"{self.uri} (database {self.database!r})" if self.database else self.uri
            raise GraphStoreError(
                f"Neo4j query {kind!r} on {where} got no answer within "
                f"{self.query_timeout:g} s (query_timeout): the server is stalled or gone"
            ) from None

    def _read_now(self, driver: Any, kind: str, params: dict[str, Any]) -> list[Any]:
        query = self._q[kind]
        neo4j = self._neo4j

        # The server-side transaction timeout: a query running too long is stopped there.
        @neo4j.unit_of_work(timeout=self.query_timeout)
        def work(tx: Any) -> list[Any]:
            self.round_trips += 1
            self.queries[kind] += 1
            return [record.values() for record in tx.run(query, params)]

        exceptions = neo4j.exceptions
        try:
            with driver.session(
                database=self.database,
                default_access_mode=neo4j.READ_ACCESS,
                bookmark_manager=self.bookmark_manager,
                fetch_size=-1,
            ) as session:
                return list(session.execute_read(work))
        except exceptions.AuthError as err:
            raise GraphStoreError(
                f"Neo4j at {self.uri} refused the credentials of user {self.username!r}: {err}"
            ) from err
        except (exceptions.Neo4jError, exceptions.DriverError, OSError, ValueError) as err:
            where = f"{self.uri} (database {self.database!r})" if self.database else self.uri
            raise GraphStoreError(f"Neo4j query {kind!r} failed on {where}: {err}") from err

    # -- protocol ----------------------------------------------------------------------
    def has_node(self, name: str) -> bool:
        return bool(self._read("has_node", name=name)[0][0])

    def num_nodes(self) -> int:
        return int(self._read("num_nodes")[0][0])

    def num_triples(self) -> int:
        """Relationships between entity nodes (the loader never writes one twice)."""
        return int(self._read("num_triples")[0][0])

    def neighbors(self, node: str, limit: int | None = None) -> list[Triple]:
        return list(self.neighbors_batch([node], limit)[node])

    def neighbors_batch(
        self, nodes: Iterable[str], limit: int | None = None
    ) -> Mapping[str, Sequence[Triple]]:
        """Neighbours of a whole frontier in one query; every requested node gets an entry."""
        frontier = list(dict.fromkeys(nodes))
        if not frontier:
            return {}
        limit = check_limit(limit)
        if limit is None:
            rows = self._read("neighbors", names=frontier)
        else:
            rows = self._read("neighbors_limit", names=frontier, limit=int(limit))
        found: dict[str, list[Triple]] = {}
        for node, pairs in rows:
            triples = [
                Triple(node, relation, other) if direction == 0 else Triple(other, relation, node)
                for other, relation, direction in pairs
            ]
            # The server already sorted; sorting again makes the order exactly Python's.
            triples.sort(key=partial(neighbor_sort_key, node))
            found[node] = triples
        return {node: found.get(node, []) for node in frontier}

    def triples_among(self, nodes: Iterable[str]) -> list[Triple]:
        members = list(dict.fromkeys(nodes))
        if not members:
            return []
        found = {Triple(h, r, t) for h, r, t in self._read("triples_among", names=members)}
        return sorted(found)

    def search_nodes(self, text: str, limit: int = 5) -> list[str]:
        """Node names closest to ``text``, best first (see :func:`rank_names`).

        The candidates come from a copy of every name, the full-text index or a scan, as
        ``name_search`` says; they are ranked by the in-memory store's rule. Call
        :meth:`refresh_names` after changing the graph (the copy is kept).
        """
        if limit <= 0:
            return []
        way = self._name_search_way()
        if way == "copy":
            index = self._names_index()
            assert index is not None
            by_normal, names = index
            return rank_names(text, by_normal, names, limit)
        if way == "fulltext":
            # The name's case forms by the name index (the full-text index scores a common
            # word's many names alike), then the full-text candidates.
            candidates = [row[0] for row in self._read("names_in", names=case_forms(text))]
            candidates += self.fulltext_names(text)
        else:
            tokens = sorted({tok for tok in normalize_name(text).split(" ") if tok}) or [""]
            candidates = [
                row[0]
                for row in self._read(
                    "name_candidates",
                    text=text,
                    lowered=normalize_name(text),
                    tokens=tokens,
                    cap=max(1000, 50 * limit),
                )
            ]
        by_normal_c: dict[str, list[str]] = {}
        for candidate in sorted(c for c in candidates if isinstance(c, str)):
            by_normal_c.setdefault(normalize_name(candidate), []).append(candidate)
        return rank_names(text, by_normal_c, list(by_normal_c), limit)

    def fulltext_names(self, text: str, cap: int = 0) -> list[str]:
        """The names the full-text index finds for ``text``: the index's best-scored ``cap``
        per query (by default :data:`FULLTEXT_CANDIDATES`), closest in length first, then by
        score (:func:`~kgcore.graph.neo4j_fulltext.fulltext_names`: the name's words, then
        the spellings one edit away of those no name found holds, as exact terms).

        Raises
        ------
        GraphStoreError
            When the server has no such index (naming how to create it).
        """
        return fulltext_names(self._fulltext_rows, text, cap)

    def _fulltext_rows(self, kind: str, query: str, cap: int) -> list[Any]:
        """One full-text query's records: the index's best ``cap`` names for ``query``."""
        try:
            return self._read(kind, index=self.mapping.fulltext_index_name, query=query, cap=cap)
        except GraphStoreError as err:
            raise GraphStoreError(
                f"full-text name search on {self.uri} failed (index "
                f"{self.mapping.fulltext_index_name!r}): {err}. Create the index with "
                "`kgqa load --create-indexes` (kgcore.graph.neo4j_indexes.create_indexes), or "
                "pass name_search='scan'"
            ) from err

    def _name_search_way(self) -> str:
        """``name_search`` resolved: "copy", "fulltext" or "scan"."""
        if self.name_search != "auto":
            return self.name_search
        if self._too_many_names is None:
            self._too_many_names = self.num_nodes() > self.name_cache_limit
        if not self._too_many_names:
            return "copy"
        if self._fulltext is None:
            try:
                self.fulltext_names("a", cap=1)
                self._fulltext = True
            except GraphStoreError:
                self._fulltext = False
                warnings.warn(
                    f"{self.uri} has more than {self.name_cache_limit:,} nodes and no full-text "
                    f"index {self.mapping.fulltext_index_name!r}: fuzzy name search scans every "
                    "name; create the index with `kgqa load --create-indexes`",
                    stacklevel=3,
                )
        return "fulltext" if self._fulltext else "scan"

    # -- vectors (G-Retriever in the database) -----------------------------------------
    def node_vectors(self, names: Sequence[str]) -> dict[str, list[float]]:
        """The stored vectors of the nodes named ``names`` (nodes without one are left out),
        in one query."""
        members = list(dict.fromkeys(names))
        if not members:
            return {}
        rows = self._read("vectors", names=members)
        return {str(name): list(vector) for name, vector in rows if vector is not None}

    def nodes_without_vectors(self, names: Sequence[str]) -> list[str]:
        """The nodes of ``names`` in the graph that have no stored vector, in one query."""
        members = list(dict.fromkeys(names))
        if not members:
            return []
        rows = self._read("vectors", names=members)
        return [str(name) for name, vector in rows if vector is None]

    def relation_vectors(self) -> dict[str, list[float]]:
        """The stored vectors of the graph's relation texts (``KgRelationText`` nodes), in one
        query."""
        rows = self._read("relation_vectors", graph=self.mapping.node_label)
        return {str(text): list(vector) for text, vector in rows if vector is not None}

    def nearest_nodes(self, vector: Sequence[float], k: int) -> list[tuple[str, float]]:
        """The ``k`` nodes whose vectors are closest to ``vector`` by the vector index
        (``(name, score)``, best first).

        Raises
        ------
        GraphStoreError
            When the server has no vector index (naming how to create it).
        """
        if k <= 0:
            return []
        try:
            rows = self._read(
                "nearest",
                index=self.mapping.vector_index_name,
                k=int(k),
                vector=[float(x) for x in vector],
            )
        except GraphStoreError as err:
            raise GraphStoreError(
                f"vector search on {self.uri} failed (index "
                f"{self.mapping.vector_index_name!r}): {err}. Write the vectors and create the "
                "index with `kgqa load --embed` (kgcore.gretriever.store_vectors)"
            ) from err
        ranked = sorted(((float(s), n) for n, s in rows if isinstance(n, str)), key=_by_score)
        return [(name, score) for score, name in ranked]

    def _names_index(self) -> tuple[dict[str, list[str]], list[str]] | None:
        if self._name_cache is None:
            by_normal: dict[str, list[str]] = {}
            for (name,) in self._read("all_names"):
                if isinstance(name, str):
                    by_normal.setdefault(normalize_name(name), []).append(name)
            self._name_cache = (by_normal, list(by_normal))
        return self._name_cache

    def refresh_names(self) -> None:
        """Forget the copied node names and what the server's indexes answered (after the
        graph or its indexes changed)."""
        self._name_cache = None
        self._too_many_names = None
        self._fulltext = None

    def __repr__(self) -> str:
        db = f", database={self.database!r}" if self.database else ""
        return f"Neo4jGraphStore({self.uri!r}{db}, label={self.mapping.node_label!r})"


def _by_score(item: tuple[float, str]) -> tuple[float, str]:
    return (-item[0], item[1])


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
