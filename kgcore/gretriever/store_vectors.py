"""G-Retriever's vectors in the graph database: written once, read by each question's region.

On a graph held in Neo4j the client never embeds the whole graph. :func:`write_embeddings`
embeds every node text (the node's name) and every relation text that has no vector yet and
writes the vectors into the database: node vectors as a property of the node
(``GraphMapping.embedding_property``, searched by the vector index of
:mod:`kgcore.graph.neo4j_indexes`), relation vectors on one ``KgRelationText`` node per relation
(a graph has few relations). Run again after adding triples, it embeds only the new texts,
with a progress bar and an estimate of the time left. The model is recorded beside them, and a
different model is refused.

:class:`StoreVectors` is the :class:`~kgcore.embeddings.TextEmbedder` G-Retriever then
uses: the texts of a question's region come from the database in one query, and only texts it
has no vector for (a relation written since, a compound relation of
:mod:`kgcore.graph.compound`) are embedded in the client. The vectors are the embedder's own
``float32`` rows, so the subgraphs are those of the in-memory store with the same embedder.

Example
-------
>>> summary = write_embeddings(store, SentenceTransformerEmbedder())  # doctest: +SKIP
>>> retriever = GRetriever(store=store, embedder=StoreVectors(store, embedder))  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from kgcore.embeddings import TextEmbedder
from kgcore.exceptions import EmbeddingError, InvalidSettingError
from kgcore.graph.neo4j_store import RELATION_VECTOR_LABEL, Neo4jGraphStore

__all__ = [
    "RELATION_LABEL",
    "EmbeddingSummary",
    "StoreVectors",
    "vector_database",
    "write_embeddings",
]

#: The label of the nodes holding relation texts' vectors (one per relation and graph label).
RELATION_LABEL = RELATION_VECTOR_LABEL
#: The label of the node recording which model wrote a graph's vectors.
MODEL_LABEL = "KgEmbeddingModel"


@dataclass
class EmbeddingSummary:
    """What :func:`write_embeddings` embedded and wrote."""

    model_id: str
    dimensions: int
    nodes_embedded: int = 0
    relations_embedded: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        return (
            f"embedded {self.nodes_embedded:,} node and {self.relations_embedded:,} relation "
            f"texts with {self.model_id} ({self.dimensions} dimensions) in {self.seconds:.1f} s"
        )


class _Queries:
    """The write-side Cypher of one mapping (identifiers validated by the mapping)."""

    def __init__(self, store: Neo4jGraphStore) -> None:
        m = store.mapping
        label, name, emb = m.label, m.name, m.embedding
        rel, relation = m.rel_pattern("r"), m.relation_expr("r")
        self.missing_count = (
            f"MATCH (n:{label}) WHERE n.{emb} IS NULL AND n.{name} IS NOT NULL "
            "RETURN count(n) AS count"
        )
        self.missing_names = (
            f"MATCH (n:{label}) WHERE n.{emb} IS NULL AND n.{name} IS NOT NULL "
            f"RETURN n.{name} AS name LIMIT $batch"
        )
        self.set_vectors = (
            f"UNWIND $rows AS row MATCH (n:{label}) WHERE n.{name} = row[0] SET n.{emb} = row[1]"
        )
        self.relations = (
            f"MATCH (:{label})-[{rel}]->(:{label}) WHERE {relation} IS NOT NULL "
            f"RETURN DISTINCT {relation} AS relation"
        )
        self.relation_vectors = (
            f"MATCH (x:{RELATION_LABEL}) WHERE x.graph = $graph RETURN x.text, x.embedding"
        )
        self.set_relation_vectors = (
            f"UNWIND $rows AS row MERGE (x:{RELATION_LABEL} {{graph: $graph, text: row[0]}}) "
            "SET x.embedding = row[1]"
        )
        self.model = f"MATCH (x:{MODEL_LABEL}) WHERE x.graph = $graph RETURN x.model, x.dimensions"
        self.set_model = (
            f"MERGE (x:{MODEL_LABEL} {{graph: $graph}}) SET x.model = $model, "
            "x.dimensions = $dimensions"
        )


def _run(store: Neo4jGraphStore, query: str, write: bool = False, **params: Any) -> list[Any]:
    """One query in a managed transaction, within the store's ``write_timeout`` or
    ``query_timeout``; errors as :class:`~kgcore.exceptions.GraphStoreError`."""

    def work(tx: Any) -> list[Any]:
        return [record.values() for record in tx.run(query, params)]

    if write:
        return store.write(work, what="write of vectors")
    return store.read(work, what="read of vectors")


def _rows(texts: Sequence[str], vectors: np.ndarray) -> list[list[Any]]:
    return [[text, [float(x) for x in row]] for text, row in zip(texts, vectors, strict=True)]


def _embed(embedder: TextEmbedder, texts: Sequence[str]) -> np.ndarray:
    vectors = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] != len(texts):
        raise EmbeddingError(f"expected {len(texts)} embedding rows, got shape {vectors.shape}")
    return vectors


def _check_model(store: Neo4jGraphStore, embedder: TextEmbedder, dimensions: int) -> None:
    q = _Queries(store)
    graph = store.mapping.node_label
    rows = _run(store, q.model, graph=graph)
    if rows and rows[0][0] is not None:
        model, stored = rows[0][0], rows[0][1]
        if model != embedder.model_id or (stored is not None and int(stored) != dimensions):
            raise EmbeddingError(
                f"the vectors of {graph!r} at {store.uri} were written with {model!r} "
                f"({stored} dimensions), not {embedder.model_id!r} ({dimensions}): embed with "
                "that model (or delete the vectors first)"
            )
    _run(
        store, q.set_model, write=True, graph=graph, model=embedder.model_id, dimensions=dimensions
    )


def write_embeddings(
    store: Neo4jGraphStore,
    embedder: TextEmbedder,
    *,
    batch_size: int = 256,
    progress: bool = True,
    names: Sequence[str] | None = None,
) -> EmbeddingSummary:
    """Embed the node and relation texts that have no vector yet and write them into ``store``.

    Parameters
    ----------
    store : Neo4jGraphStore
        The graph (its mapping names the label and the vector property).
    embedder : TextEmbedder
        The model; every vector of one graph comes from one model (recorded, then checked).
    batch_size : int
        Texts embedded and written per transaction.
    progress : bool
        A progress bar over the texts left, with its rate and the time left.
    names : sequence of str, optional
        Only these nodes (those of them without a vector): the names of triples just added,
        say. By default every node without a vector.

    Returns
    -------
    EmbeddingSummary
        What was embedded: nothing, on a graph whose texts all have vectors.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidSettingError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    started = time.perf_counter()
    q = _Queries(store)
    graph = store.mapping.node_label
    probe = _embed(embedder, ["probe"])
    summary = EmbeddingSummary(embedder.model_id, int(probe.shape[1]))
    _check_model(store, embedder, summary.dimensions)
    todo = None if names is None else _without_vectors(store, names, batch_size)
    total = int(_run(store, q.missing_count)[0][0]) if todo is None else len(todo)
    with tqdm(
        total=total, unit="text", desc="embedding nodes", disable=not progress or not total
    ) as bar:
        while True:
            if todo is None:
                chunk = [row[0] for row in _run(store, q.missing_names, batch=batch_size)]
                chunk = [n for n in chunk if isinstance(n, str)]
            else:
                chunk, todo = todo[:batch_size], todo[batch_size:]
            if not chunk:
                break
            vectors = _embed(embedder, chunk)
            _run(store, q.set_vectors, write=True, rows=_rows(chunk, vectors))
            summary.nodes_embedded += len(chunk)
            bar.update(len(chunk))
    relations = sorted(
        {r[0] for r in _run(store, q.relations) if isinstance(r[0], str)}
        - {r[0] for r in _run(store, q.relation_vectors, graph=graph)}
    )
    for start in range(0, len(relations), batch_size):
        chunk = relations[start : start + batch_size]
        rows = _rows(chunk, _embed(embedder, chunk))
        _run(store, q.set_relation_vectors, write=True, rows=rows, graph=graph)
        summary.relations_embedded += len(chunk)
    summary.seconds = time.perf_counter() - started
    return summary


def _without_vectors(store: Neo4jGraphStore, names: Sequence[str], chunk: int) -> list[str]:
    """The nodes of ``names`` in the graph that have no vector yet, in order."""
    wanted = list(dict.fromkeys(names))
    missing: set[str] = set()
    for start in range(0, len(wanted), chunk * 8):
        missing.update(store.nodes_without_vectors(wanted[start : start + chunk * 8]))
    return [name for name in wanted if name in missing]


class StoreVectors:
    """A :class:`~kgcore.embeddings.TextEmbedder` reading stored vectors.

    Parameters
    ----------
    store : Neo4jGraphStore
        Where :func:`write_embeddings` wrote the vectors.
    embedder : TextEmbedder
        The model that wrote them; it embeds the texts the store has no vector for, and the
        questions.

    Example
    -------
    >>> vectors = StoreVectors(store, embedder)  # doctest: +SKIP
    >>> vectors.embed(["Cleopatra", "directed_by"]).shape  # doctest: +SKIP
    (2, 384)
    """

    def __init__(self, store: Neo4jGraphStore, embedder: TextEmbedder) -> None:
        self.store = store
        self.embedder = embedder
        self.model_id = embedder.model_id
        self._relations: dict[str, np.ndarray] | None = None
        #: Texts read from the store and embedded here, so far.
        self.read_count = 0
        self.embedded_count = 0

    @property
    def uncached(self) -> TextEmbedder:
        """The model itself (questions are embedded by it)."""
        return self.embedder

    def _relation_vectors(self) -> dict[str, np.ndarray]:
        if self._relations is None:  # a graph has few relations: read once
            self._relations = {
                text: np.asarray(vector, dtype=np.float32)
                for text, vector in self.store.relation_vectors().items()
            }
        return self._relations

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Vectors of ``texts``: node and relation vectors from the store (one query each),
        the rest embedded by the model."""
        texts = list(texts)
        found: dict[str, np.ndarray] = {}
        relations = self._relation_vectors()
        for text in texts:
            if text in relations:
                found[text] = relations[text]
        nodes = self.store.node_vectors([t for t in texts if t not in found])
        for text, vector in nodes.items():
            found[text] = np.asarray(vector, dtype=np.float32)
        self.read_count += len(found)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            for text, row in zip(missing, _embed(self.embedder, missing), strict=True):
                found[text] = row
            self.embedded_count += len(missing)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[t] for t in texts]).astype(np.float32)


def vector_database(store: Any) -> Any:
    """The graph database behind ``store`` that can hold G-Retriever's vectors (a store with
    ``node_vectors`` and ``nearest_nodes``, seen through a compound-node view or not), or
    ``None`` for an in-memory graph.

    >>> from kgcore.graph import InMemoryGraphStore
    >>> vector_database(InMemoryGraphStore()) is None
    True
    """
    inner = getattr(store, "inner", store)
    if callable(getattr(inner, "node_vectors", None)) and callable(
        getattr(inner, "nearest_nodes", None)
    ):
        return inner
    return None
