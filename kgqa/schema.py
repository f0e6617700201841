"""``kgqa schema`` and ``kgqa index``: what a Bolt graph holds, and its search indexes.

Example
-------
.. code-block:: console

    $ kgqa schema --kg bolt://neo4j@localhost:7687/movies
    $ kgqa schema --kg bolt://... --json            # the schema and the mapping as JSON
    $ kgqa index --kg bolt://...                    # the full-text indexes name search uses

``kgqa schema`` only reads (read transactions, no APOC); ``kgqa index`` is the one step that
writes, and only indexes.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from kgqa.common import kg_argument
from kgqa.door import check_graph, whole_number


def _seconds(text: str) -> float:
    """``--deadline``: seconds in (0, 3600].

    >>> _seconds("2.5")
    2.5
    """
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds <= 3600:
        raise argparse.ArgumentTypeError(f"must be in (0, 3600] seconds, got {text!r}")
    return seconds


def _connection(spec: str) -> Any:
    from kgcore.graph.open import open_neo4j

    check_graph(spec)
    return open_neo4j(spec)


def _schema(args: argparse.Namespace) -> int:
    from kgcore.graph.label_mapping import LabelMapping, mapping_for
    from kgcore.graph.schema import discover_schema

    store = _connection(args.kg or "neo4j")
    try:
        schema = discover_schema(store, sample=args.sample, deadline=args.deadline)
    finally:
        store.close()
    mapping = mapping_for(schema)
    if args.json:
        if isinstance(mapping, LabelMapping):
            described = mapping.as_dict()
        else:
            described = {"layout": "triples", "label": mapping.node_label}
        print(json.dumps({"schema": schema.as_dict(), "mapping": described}, indent=2))
        return 0
    at_least = f" (counts stop at {schema.count_cap:,})"
    print(f"schema of {store.uri}, read in {schema.seconds:.2f} s{at_least}")
    for name, label in sorted(schema.labels.items()):
        props = ", ".join(f"{k}: {p.kind}" for k, p in sorted(label.properties.items()))
        print(f"  (:{name}) {label.count:,} nodes; {props or 'no properties'}")
    for name, rel in sorted(schema.relationships.items()):
        ends = ", ".join(f"{a}->{b}" for a, b in sorted(rel.ends))
        props = ", ".join(f"{k}: {p.kind}" for k, p in sorted(rel.properties.items()))
        print(f"  [:{name}] {rel.count:,} ({ends}){'; ' + props if props else ''}")
    print("mapping:")
    if isinstance(mapping, LabelMapping):
        print("  " + mapping.describe().replace("\n", "\n  "))
    else:
        print(f"  the triple layout: (:{mapping.node_label}) named by {mapping.name_property}")
    return 0


def _index(args: argparse.Namespace) -> int:
    from kgcore.exceptions import GraphStoreError
    from kgcore.graph.label_mapping import LabelMapping, mapping_for
    from kgcore.graph.label_queries import name_index_mapping
    from kgcore.graph.neo4j_indexes import create_indexes, fulltext_ddl
    from kgcore.graph.neo4j_store import server_refusal
    from kgcore.graph.schema import discover_schema

    store = _connection(args.kg or "neo4j")
    try:
        mapping = mapping_for(discover_schema(store))
        if not isinstance(mapping, LabelMapping):
            print("indexes: " + ", ".join(create_indexes(store.with_mapping(mapping))))
            return 0
        created = []
        for spec in mapping.labels:
            names = name_index_mapping(spec.label, spec.name_property)
            name, ddl = names.fulltext_index_name, fulltext_ddl(names)
            try:
                store.write(lambda tx, q=ddl: tx.run(q).consume(), what=f"index {name}")
            except GraphStoreError as err:
                if server_refusal(err) is None:
                    raise
                raise GraphStoreError(
                    f"{store.uri} refused Neo4j's full-text index statement ({err}); on "
                    f"ArcadeDB create it with SQL: CREATE INDEX ON {spec.label} "
                    f"({spec.name_property}) FULL_TEXT"
                ) from err
            created.append(name)
        print("indexes: " + ", ".join(created))
    finally:
        store.close()
    return 0


def add_subcommands(commands: Any) -> None:
    """Register ``kgqa schema`` and ``kgqa index`` on the CLI's subparsers."""
    schema = commands.add_parser(
        "schema",
        help="print what a Bolt graph holds and how it will be read",
        description="Read a Bolt graph's labels, relationship types and properties with "
        "plain Cypher (no APOC, read transactions only) and print them with the mapping the "
        "methods will read it through.",
    )
    index = commands.add_parser(
        "index",
        help="create the full-text indexes name search uses on a Bolt graph",
        description="Create a full-text index on each entity label's name property (the "
        "one step that writes: reading never creates an index).",
    )
    for parser in (schema, index):
        parser.add_argument(
            "--kg", type=kg_argument, help="bolt:// or neo4j:// URI (default: NEO4J_URI ...)"
        )
    schema.add_argument("--json", action="store_true", help="print the schema as JSON")
    schema.add_argument(
        "--sample", type=whole_number(1), default=200, help="nodes sampled per label (default: 200)"
    )
    schema.add_argument(
        "--deadline", type=_seconds, default=30.0, help="seconds the reading may take (default: 30)"
    )
    schema.set_defaults(handler=_schema)
    index.set_defaults(handler=_index)
