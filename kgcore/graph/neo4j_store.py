"""A :class:`~kgcore.graph.store.GraphStore` on a Neo4j server (or any Bolt server speaking Cypher).

Every query is parameterised: names and relations travel as Bolt parameters, never in the query
text. The only identifiers in the text are the label, property and relationship type names of the
:class:`GraphMapping`, which are validated and backquoted once, when the store is built, so the
query texts are fixed for the store's lifetime. The texts are built in
:mod:`kgcore.graph.neo4j_queries` (with :class:`GraphMapping`), the full-text name search in
:mod:`kgcore.graph.neo4j_fulltext`; this module holds the :class:`~kgcore.graph.store.GraphStore`
reads, the name search and the stored vectors.

Retrieval runs in managed read transactions (``session.execute_read`` on sessions opened in READ
access mode), so a cluster routes it to readers and a server that enforces access modes refuses
any write. A whole frontier is fetched by one query (``UNWIND $names``), at most ``limit``
neighbours per node in the canonical order of :func:`kgcore.types.neighbor_sort_key` (other
endpoint's name, relation, outgoing before incoming). Sampling itself is done by the shared core
(:func:`kgcore.community.sampling.sample_neighborhood`), so this store and
:class:`~kgcore.graph.memory.InMemoryGraphStore` give identical subgraphs for a seed.

The connection (driver, sessions, transactions, deadlines, a cluster's members) is
:class:`~kgcore.graph.neo4j_connection.Neo4jConnection`, which this store extends.

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
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

from kgcore.exceptions import GraphStoreError, InvalidSettingError
from kgcore.graph.names import normalize_name, rank_names
from kgcore.graph.neighbor_cache import DEFAULT_CACHE_SECONDS, DEFAULT_CACHE_TRIPLES, NeighborCache
from kgcore.graph.neo4j_connection import (
    MAX_TIMEOUT_S,
    MEMBER_RETRY_S,
    Neo4jConnection,
    import_neo4j,
    server_refusal,
)
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

_T = TypeVar("_T")

__all__ = [
    "DEFAULT_MAPPING",
    "FULLTEXT_CANDIDATES",
    "FULLTEXT_QUERY_CHARS",
    "FULLTEXT_QUERY_WORDS",
    "FULLTEXT_VARIANT_TERMS",
    "LLAMAINDEX_MAPPING",
    "MAX_TIMEOUT_S",
    "MEMBER_RETRY_S",
    "NAME_SEARCHES",
    "RELATION_VECTOR_LABEL",
    "VARIANT_ALPHABET",
    "GraphMapping",
    "Neo4jConnection",
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


class Neo4jGraphStore(Neo4jConnection):
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
    neighbor_cache_triples, neighbor_cache_seconds : int, float
        The neighbour lists read are kept, at most this many triples in all and each for at
        most this many seconds (:mod:`kgcore.graph.neighbor_cache`; how stale a read may be
        when the graph changes elsewhere; a write through the store clears them). 0 turns
        the cache off.
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
        neighbor_cache_triples: int = DEFAULT_CACHE_TRIPLES,
        neighbor_cache_seconds: float = DEFAULT_CACHE_SECONDS,
    ) -> None:
        if name_search not in NAME_SEARCHES:
            raise InvalidSettingError(
                f"name_search must be one of {', '.join(NAME_SEARCHES)}, got {name_search!r}"
            )
        super().__init__(
            uri,
            username,
            password,
            database,
            connect_timeout=connect_timeout,
            max_retry_time=max_retry_time,
            query_timeout=query_timeout,
            write_timeout=write_timeout,
            bookmarks=bookmarks,
            driver_config=driver_config,
            members=members,
        )
        self.mapping = mapping
        self.name_cache_limit = int(name_cache_limit)
        self.name_search = name_search
        self._fulltext: bool | None = None  # whether the full-text index answered
        self._matching: dict[str, bool] = {}  # holds_names_matching, by pattern
        self._name_cache: tuple[dict[str, list[str]], list[str]] | None = None
        self._too_many_names: bool | None = None
        self._q = read_queries(mapping)  # fixed for the store's lifetime
        self.neighbor_cache = NeighborCache(neighbor_cache_triples, neighbor_cache_seconds)
        if verify:
            try:
                self._on_member(self.verify)
            except GraphStoreError:
                self.close()
                raise

    def with_mapping(self, mapping: GraphMapping) -> Neo4jGraphStore:
        """This store's connection read through another layout (the driver is shared: close
        one of the two)."""
        other = copy.copy(self)
        other.mapping = mapping
        other._q = read_queries(mapping)
        other.queries = Counter()
        other._name_cache = other._too_many_names = other._fulltext = None
        other.neighbor_cache = self.neighbor_cache.fresh()
        return other

    # -- queries ------------------------------------------------------------------------
    @property
    def query_texts(self) -> Mapping[str, str]:
        """Every Cypher text this store sends, by name (fixed once the store is built)."""
        return dict(self._q)

    def _read(self, kind: str, **params: Any) -> list[Any]:
        """Run the store's named read query ``kind`` (:meth:`read_named`)."""
        return self.read_named(kind, self._q[kind], params)

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
        cached = self.neighbor_cache.get_many(frontier, limit)
        missing = [node for node in frontier if node not in cached]
        if not missing:
            rows = []
        elif limit is None:
            rows = self._read("neighbors", names=missing)
        else:
            rows = self._read("neighbors_limit", names=missing, limit=int(limit))
        found: dict[str, Sequence[Triple]] = dict(cached)
        for node, pairs in rows:
            triples = [
                Triple(node, relation, other) if direction == 0 else Triple(other, relation, node)
                for other, relation, direction in pairs
            ]
            # The server already sorted; sorting again makes the order exactly Python's.
            triples.sort(key=partial(neighbor_sort_key, node))
            found[node] = triples
        for node in missing:
            self.neighbor_cache.put(node, limit, found.get(node, ()))
        return {node: list(found.get(node, ())) for node in frontier}

    def write(self, work: Callable[..., _T], *args: Any, what: str = "write") -> _T:
        """:meth:`Neo4jConnection.write`; then the neighbour lists kept are forgotten (a read
        made while the write ran is forgotten too)."""
        try:
            return super().write(work, *args, what=what)
        finally:
            self.neighbor_cache.clear()

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
        self._matching.clear()

    def holds_names_matching(self, pattern: str) -> bool:
        """Whether a node's whole name matches the regular expression ``pattern`` (one query
        per pattern, kept until :meth:`refresh_names`)."""
        found = self._matching.get(pattern)
        if found is None:
            found = self._matching[pattern] = bool(self._read("names_matching", pattern=pattern))
        return found

    def __repr__(self) -> str:
        db = f", database={self.database!r}" if self.database else ""
        return f"Neo4jGraphStore({self.uri!r}{db}, label={self.mapping.node_label!r})"


def _by_score(item: tuple[float, str]) -> tuple[float, str]:
    return (-item[0], item[1])
