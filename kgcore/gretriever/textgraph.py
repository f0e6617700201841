"""A textual graph held in numpy arrays: node texts, edge endpoints and edge relations.

G-Retriever works on graphs whose nodes and edges carry text. :class:`TextualGraph` keeps a graph
in the array form PCST needs (``edge_index`` of shape ``(2, E)``) together with the texts, and
knows how to hash its content for the embedding cache.

Example
-------
>>> graph = TextualGraph.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
>>> graph.node_texts
('Cleopatra', 'Joseph L. Mankiewicz')
>>> graph.edge_texts("triple")
('Cleopatra directed_by Joseph L. Mankiewicz',)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from kgcore.exceptions import EmptyGraphError, GraphLoadError
from kgcore.types import Triple, qualified, qualifier_of

#: How an edge is turned into text: its relation only (the paper), or ``"head relation tail"``.
EdgeTextMode = Literal["relation", "triple"]
EDGE_TEXT_MODES: tuple[str, ...] = ("relation", "triple")


def check_edge_text_mode(mode: str) -> EdgeTextMode:
    """Return ``mode`` when it is a known edge-text mode, else raise ``ConfigurationError``."""
    from kgcore.exceptions import ConfigurationError

    if mode not in EDGE_TEXT_MODES:
        raise ConfigurationError(
            f"unknown edge text mode {mode!r}; expected one of {', '.join(EDGE_TEXT_MODES)}"
        )
    return mode  # type: ignore[return-value]


@dataclass(frozen=True)
class TextualGraph:
    """A directed multigraph whose nodes and edges carry text.

    Parameters
    ----------
    node_texts : tuple of str
        Text of each node; node ``i`` is ``node_texts[i]``.
    edge_index : numpy.ndarray
        ``int64`` array of shape ``(2, E)``: source and destination node of each edge.
    edge_relations : tuple of str
        Relation text of each edge.
    edge_notes : tuple of str
        A note qualifying each edge's fact (a relationship's properties, ``roles: Neo``; see
        :class:`~kgcore.types.QualifiedTriple`), or empty when no edge has one.

    Example
    -------
    >>> g = TextualGraph(("a", "b"), np.array([[0], [1]]), ("r",))
    >>> g.num_nodes, g.num_edges
    (2, 1)
    """

    node_texts: tuple[str, ...]
    edge_index: np.ndarray
    edge_relations: tuple[str, ...]
    edge_notes: tuple[str, ...] = ()
    _position: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        edge_index = np.asarray(self.edge_index, dtype=np.int64).reshape(2, -1)
        object.__setattr__(self, "edge_index", edge_index)
        object.__setattr__(self, "node_texts", tuple(self.node_texts))
        object.__setattr__(self, "edge_relations", tuple(self.edge_relations))
        object.__setattr__(self, "edge_notes", tuple(self.edge_notes))
        if self.edge_notes and len(self.edge_notes) != len(self.edge_relations):
            raise GraphLoadError(
                f"{len(self.edge_notes)} edge notes were given for {len(self.edge_relations)} edges"
            )
        if edge_index.shape[1] != len(self.edge_relations):
            raise GraphLoadError(
                f"edge_index has {edge_index.shape[1]} edges but {len(self.edge_relations)} "
                "relations were given"
            )
        if edge_index.size and (edge_index.min() < 0 or edge_index.max() >= len(self.node_texts)):
            raise GraphLoadError(
                f"edge_index refers to nodes outside 0..{len(self.node_texts) - 1}"
            )

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_triples(
        cls, triples: Iterable[Sequence[str]], nodes: Iterable[str] = ()
    ) -> TextualGraph:
        """Build a graph from ``(head, relation, tail)`` triples; nodes are numbered as first seen.

        ``nodes`` are numbered first (so isolated nodes are kept). Duplicate triples are kept once.
        A :class:`~kgcore.types.QualifiedTriple`'s note is kept as its edge's note.
        """
        position: dict[str, int] = {}
        for node in nodes:
            position.setdefault(str(node), len(position))
        heads: list[int] = []
        tails: list[int] = []
        relations: list[str] = []
        notes: list[str] = []
        seen: set[tuple[str, str, str]] = set()
        for triple in triples:
            head, relation, tail = triple
            key = (str(head), str(relation), str(tail))
            if key in seen:
                continue
            seen.add(key)
            heads.append(position.setdefault(key[0], len(position)))
            tails.append(position.setdefault(key[2], len(position)))
            relations.append(key[1])
            notes.append(qualifier_of(triple))
        edge_index = np.array([heads, tails], dtype=np.int64).reshape(2, -1)
        return cls(
            tuple(position),
            edge_index,
            tuple(relations),
            edge_notes=tuple(notes) if any(notes) else (),
            _position=position,
        )

    @classmethod
    def from_nodes_and_edges(
        cls,
        nodes: Sequence[tuple[int, str]],
        edges: Sequence[tuple[int, str, int]],
    ) -> TextualGraph:
        """Build a graph from G-Retriever's ``[[id, text]]`` and ``[[src, relation, dst]]`` lists.

        Node ids must be ``0..N-1`` (in any order).

        Example
        -------
        >>> g = TextualGraph.from_nodes_and_edges([(0, "cannabis"), (1, "marijuana")],
        ...                                       [(0, "synonym of", 1)])
        >>> g.triples()
        [Triple(head='cannabis', relation='synonym of', tail='marijuana')]
        """
        texts: list[str | None] = [None] * len(nodes)
        for node_id, text in nodes:
            if not 0 <= int(node_id) < len(nodes):
                raise GraphLoadError(f"node id {node_id} outside 0..{len(nodes) - 1}")
            texts[int(node_id)] = str(text)
        if any(t is None for t in texts):
            raise GraphLoadError("node ids must be 0..N-1 without gaps")
        edge_index = np.array([[int(s) for s, _, _ in edges], [int(d) for _, _, d in edges]])
        return cls(tuple(texts), edge_index, tuple(str(r) for _, r, _ in edges))  # type: ignore[arg-type]

    # -- views -------------------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        """Number of nodes."""
        return len(self.node_texts)

    @property
    def num_edges(self) -> int:
        """Number of edges."""
        return int(self.edge_index.shape[1])

    def position(self, text: str) -> int | None:
        """Index of the node with this text (the first, when texts repeat), or ``None``."""
        if not self._position and self.node_texts:
            index: dict[str, int] = {}
            for i, t in enumerate(self.node_texts):
                index.setdefault(t, i)
            self._position.update(index)
        return self._position.get(text)

    def edge_texts(self, mode: EdgeTextMode = "relation") -> tuple[str, ...]:
        """Text of each edge: its relation, or ``"head relation tail"``."""
        check_edge_text_mode(mode)
        if mode == "relation":
            return self.edge_relations
        texts = self.node_texts
        return tuple(
            f"{texts[s]} {r} {texts[d]}"
            for s, r, d in zip(
                self.edge_index[0], self.edge_relations, self.edge_index[1], strict=True
            )
        )

    def triples(self, edge_ids: Iterable[int] | None = None) -> list[Triple]:
        """The edges (all, or those in ``edge_ids``) as :class:`~kgcore.types.Triple` (with
        their notes, :func:`~kgcore.types.qualified`)."""
        ids = range(self.num_edges) if edge_ids is None else edge_ids
        src, dst = self.edge_index
        notes = self.edge_notes
        return [
            qualified(
                Triple(self.node_texts[src[i]], self.edge_relations[i], self.node_texts[dst[i]]),
                notes[i] if notes else "",
            )
            for i in ids
        ]

    def require_nonempty(self) -> None:
        """Raise :class:`~kgcore.exceptions.EmptyGraphError` when the graph has no nodes."""
        if self.num_nodes == 0:
            raise EmptyGraphError("the graph has no nodes: nothing to retrieve from")

    def content_hash(self) -> str:
        """A SHA-256 of the node texts, edges and relations (the cache key of its embeddings)."""
        digest = hashlib.sha256()
        digest.update(len(self.node_texts).to_bytes(8, "little"))
        for text in self.node_texts:
            digest.update(text.encode("utf-8") + b"\x00")
        digest.update(np.ascontiguousarray(self.edge_index, dtype="<i8").tobytes())
        for relation in self.edge_relations:
            digest.update(relation.encode("utf-8") + b"\x00")
        return digest.hexdigest()
