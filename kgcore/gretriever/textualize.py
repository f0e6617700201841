"""Turn a retrieved subgraph into text for the LLM prompt.

Two formats: the paper's (a ``node_id,node_attr`` CSV table, a blank line, then a
``src,edge_attr,dst`` table, exactly as G-Retriever and PyG write it) and plain triples, one
``(head, relation, tail)`` per line.

Example
-------
>>> print(textualize_paper([(0, "cannabis"), (1, "marijuana")], [(0, "synonym of", 1)]))
node_id,node_attr
0,cannabis
1,marijuana
<BLANKLINE>
src,edge_attr,dst
0,synonym of,1
<BLANKLINE>
>>> print(textualize_triples([("cannabis", "synonym of", "marijuana")]))
(cannabis, synonym of, marijuana)
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Literal

from kgcore.exceptions import ConfigurationError
from kgcore.types import qualifier_of

TextFormat = Literal["paper", "triples"]
TEXT_FORMATS: tuple[str, ...] = ("paper", "triples")


def _csv_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    # The csv module quotes fields holding commas or quotes, as pandas' to_csv does in the paper.
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def textualize_paper(
    nodes: Iterable[tuple[int, str]], edges: Iterable[tuple[int, str, int]]
) -> str:
    """The paper's textual graph: node table, blank line, edge table (ids are node ids)."""
    return (
        _csv_table(("node_id", "node_attr"), nodes)
        + "\n"
        + _csv_table(("src", "edge_attr", "dst"), edges)
    )


def textualize_triples(triples: Iterable[Sequence[str]]) -> str:
    """One ``(head, relation, tail)`` line per triple; a
    :class:`~kgcore.types.QualifiedTriple`'s note follows its tail.

    >>> from kgcore.types import Triple, qualified
    >>> print(textualize_triples([qualified(Triple("Keanu Reeves", "acted in", "The Matrix"),
    ...                                     "roles: Neo")]))
    (Keanu Reeves, acted in, The Matrix; roles: Neo)
    """
    lines = []
    for triple in triples:
        head, relation, tail = triple
        note = qualifier_of(triple)
        lines.append(
            f"({head}, {relation}, {tail}; {note})" if note else f"({head}, {relation}, {tail})"
        )
    return "\n".join(lines)


def check_text_format(fmt: str) -> TextFormat:
    """Return ``fmt`` when it is a known format, else raise ``ConfigurationError``."""
    if fmt not in TEXT_FORMATS:
        raise ConfigurationError(
            f"unknown text format {fmt!r}; expected one of {', '.join(TEXT_FORMATS)}"
        )
    return fmt  # type: ignore[return-value]
