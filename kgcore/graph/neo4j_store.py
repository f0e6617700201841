"""A :class:`~kgcore.graph.store.GraphStore` on a Neo4j server (or any Bolt server speaking Cypher).

Every query is parameterised: names and relations travel as Bolt parameters, never in the query
text. The only identifiers in the text are the label, property and relationship type names of the
:class:`GraphMapping`, which are validated and backquoted once, when the store is built, so the
query texts are fixed for the store's lifetime.

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

import os
import re
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
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
from kgcore.graph.store import check_limit
from kgcore.types import Triple, neighbor_sort_key

__all__ = [
    "DEFAULT_MAPPING",
    "LLAMAINDEX_MAPPING",
    "MAX_TIMEOUT_S",
    "GraphMapping",
    "Neo4jGraphStore",
    "cypher_identifier",
    "import_neo4j",
    "index_name",
    "server_refusal",
]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: The label of the nodes holding a graph's relation-text vectors (G-Retriever in the database,
#: :mod:`kgcore.gretriever.store_vectors`), one per relation and graph label.
RELATION_VECTOR_LABEL = "KgRelationText"
#: How :meth:`Neo4jGraphStore.search_nodes` finds candidate names (``name_search``).
NAME_SEARCHES = ("auto", "copy", "fulltext", "scan")
#: Candidates each full-text query returns: the index's best-scored names (the server reads
#: the names of these only), then ranked like the in-memory store's, closest in length first (a
#: fuzzy link's rivals are of about its length; 1,000 MetaQA names link as in memory,
#: ``benchmarks/neo4j_agreement.py``, and 299 of 300 misspellings at 10^7 triples,
#: ``benchmarks/scale_link_check.py``).
FULLTEXT_CANDIDATES = 200
#: Characters and words of a name read into a full-text query.
FULLTEXT_QUERY_CHARS = 200
FULLTEXT_QUERY_WORDS = 12
#: The most spelling variants (exact terms) one full-text query asks for: Lucene refuses a
#: query of more than 1,024 clauses.
FULLTEXT_VARIANT_TERMS = 1000
#: Letters inserted and substituted by :func:`spelling_variants`.
VARIANT_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
#: The driver's retry window of a store with a member list, in s: a member refusing
#: connections is left for the next one after about this long.
MEMBER_RETRY_S = 1.0
#: An index name: an identifier (Neo4j), or ArcadeDB's automatic ``Type[property,...]``.
#: The longest deadline a read (``query_timeout``) or a write (``write_timeout``) may have, in s.
MAX_TIMEOUT_S = 3600.0
_T = TypeVar("_T")
_INDEX_NAME = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(\[[A-Za-z_][A-Za-z0-9_]*(,[A-Za-z_][A-Za-z0-9_]*)*\])?\Z"
)


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


def cypher_identifier(name: str, what: str = "identifier") -> str:
    """Validate a label, property or relationship type name and return it backquoted.

    Only ``[A-Za-z_][A-Za-z0-9_]*`` is accepted: identifiers are the one part of a query that
    cannot be a parameter, so anything unusual is refused rather than escaped.

    Parameters
    ----------
    name : str
        The identifier.
    what : str
        What it names, for the error message.

    Raises
    ------
    ConfigurationError
        When ``name`` is not a plain identifier.

    Example
    -------
    >>> cypher_identifier("Entity")
    '`Entity`'
    >>> cypher_identifier("x` DETACH DELETE n")
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: invalid Cypher identifier 'x` DETACH DELETE n': ...
    """
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ConfigurationError(
            f"invalid Cypher {what} {name!r}: use letters, digits and underscores, "
            "not starting with a digit"
        )
    return f"`{name}`"


def index_name(name: str, what: str = "index") -> str:
    """Validate an index name (it reaches the server as a parameter of the search procedures).

    An identifier (Neo4j's ``kg_Entity_name_fulltext``) or ArcadeDB's automatic name of an
    index on a type and its properties (``Entity[search]``); nothing else.

    >>> index_name("Entity[search]"), index_name("kg_Entity_name_fulltext")
    ('Entity[search]', 'kg_Entity_name_fulltext')
    >>> index_name("x') YIELD node DETACH DELETE node")
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: invalid index name ...
    """
    if not isinstance(name, str) or not _INDEX_NAME.match(name):
        raise ConfigurationError(
            f"invalid {what} name {name!r}: use letters, digits and underscores, or "
            "ArcadeDB's Type[property] form"
        )
    return name


@dataclass(frozen=True)
class GraphMapping:
    """How triples are laid out in the property graph.

    Nodes carry ``node_label`` and hold their name in ``name_property``. A relation is either
    the relationship's type (``relationship_type=None``, ``relation_property=None``: the
    LlamaIndex layout, ``(:__Entity__)-[:directed_by]->(:__Entity__)``), or a property of
    relationships of one fixed type (the default layout,
    ``(:Entity)-[:RELATION {relation: "directed_by"}]->(:Entity)``), which holds any relation
    name, quotes and spaces included.

    Parameters
    ----------
    node_label : str
        Label of entity nodes; neighbours are only followed to nodes with this label.
    name_property : str
        Node property holding the entity name.
    relationship_type : str or None
        The fixed relationship type whose ``relation_property`` names the relation; ``None``
        to use each relationship's type as the relation.
    relation_property : str or None
        Relationship property naming the relation; ``None`` when the type is the relation.
    extra_labels : tuple of str
        Further labels the loader gives new nodes (LlamaIndex's ``__Node__`` and ``entity``).
    id_property : str or None
        A property the loader sets to the name on new nodes (LlamaIndex's ``id``).
    search_property : str or None
        The node property the full-text index covers (:mod:`kgcore.graph.neo4j_indexes`);
        ``None``: the name itself. ArcadeDB keeps one index per property, so there the loader
        writes a copy of the name under its own property (``"search"``).
    embedding_property : str
        The node property holding a node text's vector (G-Retriever in the database).
    fulltext_index, vector_index : str or None
        The names of the full-text and vector indexes the searches use; ``None``:
        ``kg_<label>_<property>_fulltext`` and ``kg_<label>_<property>_vector``, the names
        :func:`~kgcore.graph.neo4j_indexes.create_indexes` gives them on Neo4j (ArcadeDB names
        its indexes ``Label[property]``).

    Example
    -------
    >>> GraphMapping(node_label="Person", relationship_type="LINK").relation_from_type
    False
    >>> LLAMAINDEX_MAPPING.relation_from_type
    True
    """

    node_label: str = "Entity"
    name_property: str = "name"
    relationship_type: str | None = "RELATION"
    relation_property: str | None = "relation"
    extra_labels: tuple[str, ...] = ()
    id_property: str | None = None
    search_property: str | None = None
    embedding_property: str = "embedding"
    fulltext_index: str | None = None
    vector_index: str | None = None

    def __post_init__(self) -> None:
        cypher_identifier(self.node_label, "node label")
        cypher_identifier(self.name_property, "property name")
        for label in self.extra_labels:
            cypher_identifier(label, "node label")
        if self.id_property is not None:
            cypher_identifier(self.id_property, "property name")
        if (self.relationship_type is None) != (self.relation_property is None):
            raise ConfigurationError(
                "set both relationship_type and relation_property (a fixed type whose property "
                "names the relation), or neither (the relationship type is the relation)"
            )
        if self.relationship_type is not None:
            cypher_identifier(self.relationship_type, "relationship type")
        if self.relation_property is not None:
            cypher_identifier(self.relation_property, "property name")
        if self.search_property is not None:
            cypher_identifier(self.search_property, "property name")
        cypher_identifier(self.embedding_property, "property name")
        for name in (self.fulltext_index, self.vector_index):
            if name is not None:
                index_name(name)

    @property
    def search(self) -> str:
        """The backquoted property the full-text index covers."""
        return f"`{self.search_property or self.name_property}`"

    @property
    def embedding(self) -> str:
        """The backquoted vector property."""
        return f"`{self.embedding_property}`"

    @property
    def fulltext_index_name(self) -> str:
        """The full-text index the name search queries."""
        prop = self.search_property or self.name_property
        return self.fulltext_index or f"kg_{self.node_label}_{prop}_fulltext"

    @property
    def vector_index_name(self) -> str:
        """The vector index the nearest-node search queries."""
        return self.vector_index or f"kg_{self.node_label}_{self.embedding_property}_vector"

    @property
    def relation_from_type(self) -> bool:
        """Whether the relationship type itself is the relation."""
        return self.relationship_type is None

    # -- query fragments (identifiers validated in __post_init__) -------------------------
    @property
    def label(self) -> str:
        """The backquoted node label."""
        return f"`{self.node_label}`"

    @property
    def name(self) -> str:
        """The backquoted name property."""
        return f"`{self.name_property}`"

    def rel_pattern(self, var: str = "r") -> str:
        """``r:`TYPE``` for the fixed-type layout, ``r`` otherwise."""
        return var if self.relationship_type is None else f"{var}:`{self.relationship_type}`"

    def relation_expr(self, var: str = "r") -> str:
        """The Cypher expression giving a relationship's relation name."""
        if self.relation_property is None:
            return f"type({var})"
        return f"{var}.`{self.relation_property}`"


#: The layout written by :mod:`kgcore.graph.neo4j_loader` by default.
DEFAULT_MAPPING = GraphMapping()

#: LlamaIndex's property graph layout (``Neo4jPropertyGraphStore``): entity nodes labelled
#: ``__Entity__`` with a ``name`` property; the relationship type is the relation. The loader
#: also gives new nodes the ``__Node__`` label, an ``id`` equal to the name (LlamaIndex's
#: ``EntityNode`` id) and the ``entity`` label (``EntityNode``'s default type), which
#: ``Neo4jPropertyGraphStore.get_triplets`` needs.
LLAMAINDEX_MAPPING = GraphMapping(
    node_label="__Entity__",
    name_property="name",
    relationship_type=None,
    relation_property=None,
    extra_labels=("__Node__", "entity"),
    id_property="id",
)


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
        self._build_queries()
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
    def _build_queries(self) -> None:
        # Names are matched with ``WHERE n.name = node`` rather than an inline map
        # ``(n {name: node})``: the same plan on Neo4j, and ArcadeDB 26.10 resolves a variable
        # in an inline map whose string value looks like a parameter ("$names") as that
        # parameter, so a node named "$names" was not found there. Nodes without a name and
        # relationships without a relation (possible in an existing graph) are skipped.
        m = self.mapping
        label, name, rel = m.label, m.name, m.rel_pattern("r")
        relation = m.relation_expr("r")
        neighbors = (
            "UNWIND $names AS node\n"
            f"MATCH (n:{label}) WHERE n.{name} = node\n"
            f"MATCH (n)-[{rel}]-(m:{label})\n"
            f"WHERE m.{name} IS NOT NULL AND {relation} IS NOT NULL\n"
            f"WITH DISTINCT node, m.{name} AS other, {relation} AS relation,\n"
            "     CASE WHEN startNode(r) = n THEN 0 ELSE 1 END AS direction\n"
            "ORDER BY node, other, relation, direction\n"
            "WITH node, collect([other, relation, direction]) AS rows\n"
        )
        # Full-text candidates: the index's best-scored ``$cap`` by the procedure's own
        # ``limit`` option (Neo4j 5 and ArcadeDB alike), so the server reads the names of those
        # only; ordering every match by length on the server read a name per match, and a
        # common word's matches grow with the graph. The client ranks them closest in length
        # first. They come back as one record holding a list of [name, score] pairs: the driver
        # decodes a record far more slowly than a list item (at 10^7 triples, 200 records took
        # 2 to 4 ms more).
        fulltext = (
            "CALL db.index.fulltext.queryNodes($index, $query, {limit: $cap}) YIELD node, score\n"
            f"WITH node.{name} AS name, score WHERE name IS NOT NULL\n"
            "RETURN collect([name, score]) AS rows"
        )
        self._q: dict[str, str] = {
            "has_node": f"MATCH (n:{label}) WHERE n.{name} = $name RETURN count(n) > 0 AS found",
            "num_nodes": f"MATCH (n:{label}) RETURN count(n) AS count",
            "num_triples": f"MATCH (:{label})-[{rel}]->(:{label}) RETURN count(r) AS count",
            "neighbors": neighbors + "RETURN node, rows",
            "neighbors_limit": neighbors + "RETURN node, rows[..$limit] AS rows",
            "triples_among": (
                "UNWIND $names AS node\n"
                f"MATCH (h:{label}) WHERE h.{name} = node\n"
                f"MATCH (h)-[{rel}]->(t:{label})\n"
                f"WHERE t.{name} IN $names AND {relation} IS NOT NULL\n"
                f"RETURN DISTINCT h.{name} AS head, {relation} AS relation, t.{name} AS tail"
            ),
            "all_names": f"MATCH (n:{label}) RETURN n.{name} AS name ORDER BY name",
            "fulltext": fulltext,
            "fulltext_variants": fulltext,
            "nearest": (
                "CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score\n"
                f"RETURN node.{name} AS name, score"
            ),
            "vectors": (
                "UNWIND $names AS node\n"
                f"MATCH (n:{label}) WHERE n.{name} = node\n"
                f"RETURN node, n.{m.embedding} AS vector"
            ),
            "relation_vectors": (
                f"MATCH (x:{RELATION_VECTOR_LABEL}) WHERE x.graph = $graph "
                "RETURN x.text AS text, x.embedding AS vector"
            ),
            "names_in": (
                "UNWIND $names AS wanted\n"
                f"MATCH (n:{label}) WHERE n.{name} = wanted\n"
                f"RETURN DISTINCT n.{name} AS name"
            ),
            "name_candidates": (
                f"MATCH (n:{label})\n"
                f"WITH n.{name} AS name WHERE name = $text OR "
                "any(token IN $tokens WHERE toLower(name) CONTAINS token)\n"
                "RETURN name, CASE WHEN name = $text THEN 0 "
                "WHEN toLower(trim(name)) = $lowered THEN 1 ELSE 2 END AS rank\n"
                "ORDER BY rank, name LIMIT $cap"
            ),
        }

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
        score.

        The words of ``text`` are asked for as exact terms (an index look-up each). Unless a
        name found has the same words (linking takes it), a second query asks for the words
        no name found holds and their spellings one edit away (:func:`spelling_variants`;
        those of every word of three letters or more when names hold them all), again as
        exact terms. The second query leaves out the held words: the names that hold them
        came with the first query, and asking for them again read each one's entries twice
        (a common word's entries grow with the graph). The index's own fuzzy terms
        (``word~``) are not used: a server may answer them by reading its whole index
        (ArcadeDB does), a cost that grows with the graph.

        Raises
        ------
        GraphStoreError
            When the server has no such index (naming how to create it).
        """
        words = fulltext_words(text)
        if not words:
            return []
        cap = int(cap or FULLTEXT_CANDIDATES)
        found = self._fulltext_read("fulltext", text, " ".join(words), cap)
        if loose_words(text) in {loose_words(name) for name in found}:
            return found  # the same words: linking takes it before any fuzzy candidate
        held = {word for name in found for word in fulltext_words(name)}
        # The variants of the words no name found holds (the misspelt ones); when names hold
        # every word, those of the held words (a name one edit from a real word, "Trick" for
        # "Tricks", is a candidate too). A held word's variants are common words whose
        # entries grow with the graph ("jane" -> "jade", "lane", "june").
        spelt = [word for word in dict.fromkeys(words) if len(word) >= 3]
        missing = [w for w in spelt if w not in held] or spelt
        if missing:
            query = variants_query(missing, missing)
            found += self._fulltext_read("fulltext_variants", text, query, cap)
        return list(dict.fromkeys(found))

    def _fulltext_read(self, kind: str, text: str, query: str, cap: int) -> list[str]:
        """One full-text query's names (the index's best ``cap``), closest in length to
        ``text`` first, then by score."""
        try:
            rows = self._read(kind, index=self.mapping.fulltext_index_name, query=query, cap=cap)
        except GraphStoreError as err:
            raise GraphStoreError(
                f"full-text name search on {self.uri} failed (index "
                f"{self.mapping.fulltext_index_name!r}): {err}. Create the index with "
                "`kgqa load --create-indexes` (kgcore.graph.neo4j_indexes.create_indexes), or "
                "pass name_search='scan'"
            ) from err
        pairs = rows[0][0] if rows and rows[0] and isinstance(rows[0][0], list) else []
        length = len(" ".join(str(text).split()))
        ranked = sorted(
            (abs(len(pair[0]) - length), -float(pair[1]), pair[0])
            for pair in pairs
            if isinstance(pair, list | tuple)
            and len(pair) == 2
            and isinstance(pair[0], str)
            and isinstance(pair[1], int | float)
        )
        return list(dict.fromkeys(name for _, _, name in ranked))

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


#: A full-text term as Lucene's standard tokenizer (Unicode word boundaries, UAX #29) cuts
#: it, the tokenizer of Neo4j's default analyzer and of ArcadeDB's: letters joined across an
#: apostrophe or a full stop, digits across a full stop or a comma.
_TERM = re.compile(r"\w+(?:(?:(?<=[^\W\d_])['\u2019.](?=[^\W\d_])|(?<=\d)[.,](?=\d))\w+)*")


def case_forms(text: str) -> list[str]:
    """The spellings of a name that differ from it only in case, looked up exactly.

    >>> case_forms("the matrix")
    ['the matrix', 'THE MATRIX', 'The Matrix', 'The matrix']
    """
    trimmed = " ".join(str(text).split())[:FULLTEXT_QUERY_CHARS]
    forms = [str(text), trimmed, trimmed.lower(), trimmed.upper(), trimmed.title()]
    forms.append(trimmed[:1].upper() + trimmed[1:].lower())
    return list(dict.fromkeys(form for form in forms if form))


def fulltext_words(text: str) -> list[str]:
    """The words of a name as full-text terms, as the index's standard tokenizer cuts them:
    word characters, and an apostrophe or a full stop between two letters (``o'malley``,
    ``h.g``) or a full stop or comma between two digits; lower-cased, at most
    :data:`FULLTEXT_QUERY_WORDS` (no Lucene operator or field of the text reaches a query).

    >>> fulltext_words('Cleopatre (1963) a" OR name:*')
    ['cleopatre', '1963', 'a', 'or', 'name']
    >>> fulltext_words("David O'Malley, H.G. Wells' 2.5 x-men")
    ['david', "o'malley", 'h.g', 'wells', '2.5', 'x', 'men']
    """
    words = _TERM.findall(normalize_name(str(text))[:FULLTEXT_QUERY_CHARS])
    return words[:FULLTEXT_QUERY_WORDS]


def loose_words(text: str) -> str:
    """A name's words, lower-cased, without punctuation (linking's loose form).

    >>> loose_words("The Matrix!")
    'the matrix'
    """
    return " ".join(re.findall(r"\w+", normalize_name(str(text))))


def spelling_variants(word: str) -> list[str]:
    """The spellings one edit away from ``word``: two neighbouring letters swapped, a letter
    left out, changed or added (letters of :data:`VARIANT_ALPHABET`), in that order.

    >>> spelling_variants("ab")[:4]
    ['ba', 'b', 'a', 'bb']
    >>> "bond" in spelling_variants("obnd") and "bonds" in spelling_variants("bond")
    True
    """
    swaps = [word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)]
    deletions = [word[:i] + word[i + 1 :] for i in range(len(word))]
    changes = [word[:i] + c + word[i + 1 :] for i in range(len(word)) for c in VARIANT_ALPHABET]
    additions = [word[:i] + c + word[i:] for i in range(len(word) + 1) for c in VARIANT_ALPHABET]
    variants = dict.fromkeys(swaps + deletions + changes + additions)
    variants.pop(word, None)
    return [v for v in variants if v]


def variants_query(words: Sequence[str], missing: Sequence[str]) -> str:
    """A full-text query of exact terms: ``words`` and the spelling variants of each of
    ``missing`` that are one term to the index (:func:`fulltext_words`), taken in turn (the
    first variants of each, then the next), at most :data:`FULLTEXT_VARIANT_TERMS` terms in
    all.

    >>> variants_query(["james", "obnd"], ["obnd"]).split()[:4]
    ['james', 'obnd', 'bond', 'onbd']
    """
    terms = dict.fromkeys(words)
    # Only spellings the index's tokenizer reads as one term ("o'd9ay" would be two): each
    # is one clause of the query, whose clauses Lucene caps at 1,024.
    pools = [[v for v in spelling_variants(word) if _TERM.fullmatch(v)] for word in missing]
    for rank in range(max(len(pool) for pool in pools)):
        for pool in pools:
            if rank < len(pool) and len(terms) < FULLTEXT_VARIANT_TERMS:
                terms[pool[rank]] = None
    return " ".join(terms)


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
