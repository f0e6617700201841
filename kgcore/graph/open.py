"""Open a graph store from one string: a triple file, or a Neo4j URI.

``--kg`` on the command line takes either form:

* a path (``kb.txt``, ``.tsv``, ``.csv``, ``.jsonl``): an :class:`InMemoryGraphStore`;
* ``bolt://``, ``neo4j://`` (and their ``+s``/``+ssc`` forms): a :class:`Neo4jGraphStore`.
  ``neo4j://user:password@host:7687/database?mapping=llamaindex`` may carry the user, the
  password (better left to ``NEO4J_PASSWORD``), the database and the schema mapping
  (``default`` or ``llamaindex``; or ``label=``, ``name=``, ``rel_type=``, ``rel_property=``);
  whatever it leaves out comes from ``NEO4J_USERNAME``/``NEO4J_PASSWORD``/``NEO4J_DATABASE``;
* ``neo4j`` alone: a :class:`Neo4jGraphStore` configured entirely by ``NEO4J_URI`` and friends;
* a comma-separated list of a cluster's members, ``bolt://h1:7687,bolt://h2:7688,bolt://h3:7689``:
  one store that reads from the first and moves to the next member when one is unavailable
  (:mod:`kgcore.graph.failover`). User, password, database and options are written once, on
  the first URI; the others give only ``scheme://host:port``, all with the same scheme.

Example
-------
>>> store = open_store("../shared/data/metaqa/kb.txt", progress=False)  # doctest: +SKIP
>>> store = open_store("bolt://127.0.0.1:7687/kg?mapping=llamaindex")  # doctest: +SKIP
>>> summary = write_file_to_neo4j("bolt://127.0.0.1:7687", "kb.txt")  # doctest: +SKIP
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit, urlunsplit

from kgcore.exceptions import ConfigurationError
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.neo4j_loader import LoadSummary, validate_source, write_triples_to_neo4j
from kgcore.graph.neo4j_store import (
    DEFAULT_MAPPING,
    LLAMAINDEX_MAPPING,
    GraphMapping,
    Neo4jGraphStore,
)
from kgcore.graph.store import GraphStore

__all__ = [
    "NEO4J_SCHEMES",
    "is_neo4j_spec",
    "member_uris",
    "open_neo4j",
    "open_store",
    "write_file_to_neo4j",
]

NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
#: A comma that starts the next member of a list: one followed by a Bolt scheme.
_MEMBER_SPLIT = re.compile(r",\s*(?=(?:bolt|neo4j)(?:\+s|\+ssc)?://)", re.IGNORECASE)
_MAPPING_KEYS = {
    "label": "node_label",
    "name": "name_property",
    "rel_type": "relationship_type",
    "rel_property": "relation_property",
}


def is_neo4j_spec(spec: str) -> bool:
    """Whether ``spec`` names a Neo4j server rather than a triple file.

    Example
    -------
    >>> is_neo4j_spec("neo4j://localhost"), is_neo4j_spec("kb.txt"), is_neo4j_spec("neo4j")
    (True, False, True)
    """
    if spec == "neo4j":
        return True
    scheme, sep, _ = spec.partition("://")
    return bool(sep) and scheme.lower() in NEO4J_SCHEMES


def _neo4j_settings(spec: str) -> dict[str, Any]:
    """Split a ``neo4j://user:pw@host/db?mapping=...`` spec into store arguments."""
    if spec == "neo4j":
        return {}
    parts = urlsplit(spec)
    netloc = parts.hostname or ""
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    settings: dict[str, Any] = {"uri": urlunsplit((parts.scheme, netloc, "", "", ""))}
    if parts.username:
        settings["username"] = unquote(parts.username)
    if parts.password is not None:
        settings["password"] = unquote(parts.password)
    database = unquote(parts.path.strip("/"))
    if database:
        settings["database"] = database
    query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    names = query.pop("names", None)
    mapping_name = query.pop("mapping", "auto" if names is None else "labels").lower()
    mappings = {"default": DEFAULT_MAPPING, "llamaindex": LLAMAINDEX_MAPPING}
    if mapping_name not in (*mappings, "auto", "labels"):
        raise ConfigurationError(
            f"unknown mapping {mapping_name!r} in {spec!r}: use auto, default, llamaindex or labels"
        )
    overrides: dict[str, Any] = {
        _MAPPING_KEYS[k]: query.pop(k) or None for k in list(query) if k in _MAPPING_KEYS
    }
    if query:
        raise ConfigurationError(
            f"unknown options {sorted(query)} in {spec!r}; known: mapping, names, "
            + ", ".join(_MAPPING_KEYS)
        )
    if mapping_name in ("auto", "labels") and not overrides:
        settings["discover"] = {"names": _label_names(names, spec)} if names else {}
        if mapping_name == "labels":
            settings["discover"]["force_labels"] = True
        return settings
    mapping: GraphMapping = mappings.get(mapping_name, DEFAULT_MAPPING)
    if overrides:
        mapping = replace(mapping, **overrides)
    settings["mapping"] = mapping
    return settings


def _label_names(text: str, spec: str) -> dict[str, str]:
    """``names=Person:name,Movie:title`` as ``{"Person": "name", "Movie": "title"}``."""
    found: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        label, sep, prop = part.partition(":")
        if not sep or not label or not prop:
            raise ConfigurationError(
                f"names= in {spec!r} takes Label:property pairs, comma-separated "
                f"(names=Person:name,Movie:title), got {part!r}"
            )
        found[label.strip()] = prop.strip()
    return found


def member_uris(spec: str) -> list[str]:
    """The member URIs of a comma-separated Neo4j spec (one URI: a list of one).

    A comma splits only where a Bolt scheme follows, so a password holding a comma stays whole.

    Example
    -------
    >>> member_uris("bolt://h1:7687,bolt://h2:7688")
    ['bolt://h1:7687', 'bolt://h2:7688']
    >>> member_uris("bolt://user:a,b@h1:7687")
    ['bolt://user:a,b@h1:7687']
    """
    return [part.strip() for part in _MEMBER_SPLIT.split(spec.strip())]


def _member_list_settings(spec: str, members: list[str]) -> dict[str, Any]:
    """Store arguments for a list of members: the first's settings, ``members`` all URIs."""
    settings = _neo4j_settings(members[0])
    scheme = urlsplit(members[0]).scheme.lower()
    uris = [settings["uri"]]
    for member in members[1:]:
        parts = urlsplit(member)
        if parts.scheme.lower() != scheme:
            raise ConfigurationError(
                f"cluster members in {spec!r} mix schemes ({scheme}://, {parts.scheme}://): use one"
            )
        if parts.username or parts.password or parts.path.strip("/") or parts.query:
            raise ConfigurationError(
                f"member {member!r} of {spec!r} has a user, database or options: give them "
                "once, on the first URI; the others are scheme://host:port"
            )
        if not parts.hostname:
            raise ConfigurationError(f"member {member!r} of {spec!r} names no host")
        uris.append(_neo4j_settings(member)["uri"])
    settings["members"] = uris
    return settings


def open_neo4j(spec: str = "neo4j", **kwargs: Any) -> Neo4jGraphStore:
    """A :class:`~kgcore.graph.neo4j_store.Neo4jGraphStore` for a Neo4j spec.

    Parameters
    ----------
    spec : str
        ``bolt://``/``neo4j://`` URI (see the module docstring), a comma-separated list of a
        cluster's members, or ``"neo4j"`` for the ``NEO4J_*`` environment variables alone.
    **kwargs
        Further :class:`Neo4jGraphStore` arguments; they override the spec.

    Example
    -------
    >>> store = open_neo4j("neo4j://localhost:7687/movies")  # doctest: +SKIP
    """
    settings = _spec_settings(spec)
    settings.pop("discover", None)  # written and loaded graphs use the default layout
    return Neo4jGraphStore(**{**settings, **kwargs})


def _spec_settings(spec: str) -> dict[str, Any]:
    """The store arguments of a Neo4j spec: one URI, or a cluster's list of members."""
    if not is_neo4j_spec(spec):
        raise ConfigurationError(
            f"{spec!r} is not a Neo4j URI (schemes: {', '.join(NEO4J_SCHEMES)})"
        )
    members = member_uris(spec) if spec != "neo4j" else []
    if len(members) > 1:
        return _member_list_settings(spec, members)
    return _neo4j_settings(spec)


def open_discovered(spec: str = "neo4j", **kwargs: Any) -> GraphStore:
    """The store for a Neo4j spec, its layout discovered unless the spec names one.

    A graph in a layout this package, LangChain or LlamaIndex writes is read by a
    :class:`Neo4jGraphStore` with that layout's mapping; any other graph by a
    :class:`~kgcore.graph.label_store.LabelGraphStore` over the mapping
    :func:`~kgcore.graph.label_mapping.mapping_for` chooses (``names=`` in the spec overrides
    the name properties, ``mapping=labels`` skips the known layouts).
    """
    settings = _spec_settings(spec)
    discover = settings.pop("discover", None)
    store = Neo4jGraphStore(**{**settings, **kwargs})
    if discover is None or "mapping" in kwargs:
        return store
    return read_through_schema(store, **discover)


def read_through_schema(
    store: Neo4jGraphStore, force_labels: bool = False, **overrides: Any
) -> GraphStore:
    """``store`` read through the mapping its discovered schema calls for (see
    :func:`open_discovered`); ``overrides`` as :meth:`LabelMapping.from_schema` takes them."""
    from kgcore.graph.label_mapping import LabelMapping, mapping_for
    from kgcore.graph.label_store import LabelGraphStore
    from kgcore.graph.schema import discover_schema

    try:
        schema = discover_schema(store)
        if not schema.nonempty_labels():
            return store  # an empty graph: its own layout, until something is written
        if force_labels or overrides:
            mapping: GraphMapping | LabelMapping = LabelMapping.from_schema(schema, **overrides)
        else:
            mapping = mapping_for(schema)
    except BaseException:
        store.close()
        raise
    if isinstance(mapping, LabelMapping):
        return LabelGraphStore(store, mapping, name_cache_limit=store.name_cache_limit)
    if mapping == store.mapping:
        return store
    return store.with_mapping(mapping)


def open_store(spec: str, progress: bool | None = None, **kwargs: Any) -> GraphStore:
    """The graph store ``spec`` names: a triple file or a Neo4j server.

    Parameters
    ----------
    spec : str
        A triple file path, a ``bolt://``/``neo4j://`` URI, or ``"neo4j"`` (environment).
    progress : bool, optional
        Show a progress bar while a file loads (default: only when stderr is a terminal).
    **kwargs
        For a Neo4j spec, further :class:`Neo4jGraphStore` arguments; for a file, ``fmt``.

    Raises
    ------
    GraphLoadError
        The file is missing or malformed.
    GraphStoreError
        The server is unreachable or refuses the credentials (the message names the URI).

    Example
    -------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "kb.txt"
    >>> _ = path.write_text("Heat|directed_by|Michael Mann\\n")
    >>> isinstance(open_store(str(path), progress=False), InMemoryGraphStore)
    True
    """
    if is_neo4j_spec(spec):
        return open_discovered(spec, **kwargs)
    return InMemoryGraphStore.from_file(Path(spec), fmt=kwargs.get("fmt"), progress=progress)


def write_file_to_neo4j(
    spec: str,
    source: str | Path,
    *,
    batch_size: int = 5000,
    fmt: str | None = None,
    progress: bool = True,
    **kwargs: Any,
) -> LoadSummary:
    """Load a triple file into the Neo4j server ``spec`` names (``kgqa load``).

    Returns the :class:`~kgcore.graph.neo4j_loader.LoadSummary`; ``print`` it for the summary.

    Example
    -------
    >>> print(write_file_to_neo4j("bolt://127.0.0.1:7687", "kb.txt"))  # doctest: +SKIP
    read 133,582 triples in 27 batches into bolt://127.0.0.1:7687: created 43,234 nodes ...
    """
    # The file is checked whole before connecting: a bad line costs no server round trip
    # and writes nothing. The loader checks again what depends on the layout (relations).
    validate_source(source, fmt=fmt)
    store = open_neo4j(spec, **kwargs)
    try:
        return write_triples_to_neo4j(
            store,
            source,
            batch_size=batch_size,
            fmt=fmt,
            progress=progress,
            validate=store.mapping.relation_from_type,
        )
    finally:
        store.close()
