"""Embedding index of a textual graph: node and edge vectors, cached on disk.

Identical texts are embedded once (MetaQA's 134k edges carry only 9 relation texts), and the
vectors of a graph are cached under ``cache_dir`` keyed by the graph's content, the model and the
edge-text mode, so a second run loads them instead of embedding again.

Example
-------
>>> from kgcore.gretriever.textgraph import TextualGraph
>>> graph = TextualGraph.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
>>> index = GraphIndex.build(graph, default_embedder(), cache_dir=None)  # doctest: +SKIP
>>> index.node_similarity(index.embed_query("who directed Cleopatra")).shape   # doctest: +SKIP
(2,)
"""

from __future__ import annotations

import hashlib
import json
import logging
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kgcore.embeddings import TextEmbedder, default_embedder, embedding_dimension
from kgcore.exceptions import EmbeddingError, InvalidQuestionError
from kgcore.gretriever.textgraph import EdgeTextMode, TextualGraph, check_edge_text_mode
from kglocal.locations import user_cache_dir

logger = logging.getLogger(__name__)

#: Bump when the cache file layout changes (2: a checksum of the vectors in the metadata).
CACHE_VERSION = 2


def default_cache_dir() -> Path:
    """``gretriever`` in :func:`~kglocal.locations.user_cache_dir` (``$KGQA_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/kg-retrievers``, else ``~/.cache/kg-retrievers``)."""
    return user_cache_dir() / "gretriever"


@dataclass
class EmbeddedTexts:
    """Vectors of a list of texts, each distinct text embedded once.

    Parameters
    ----------
    unique_texts : tuple of str
        The distinct texts, in first-seen order.
    vectors : numpy.ndarray
        ``(len(unique_texts), dim)`` unit-norm float32 rows.
    rows : numpy.ndarray
        For each item, the row of its text in ``vectors``.

    Example
    -------
    >>> table = EmbeddedTexts.from_vectors(["a", "b", "a"], np.eye(2, dtype=np.float32)[[0, 1, 0]])
    >>> table.rows.tolist(), table.similarity(np.array([1.0, 0.0], dtype=np.float32)).tolist()
    ([0, 1, 0], [1.0, 0.0, 1.0])
    """

    unique_texts: tuple[str, ...]
    vectors: np.ndarray
    rows: np.ndarray
    _row_of: dict[str, int] = field(default_factory=dict, repr=False)

    @staticmethod
    def dedupe(texts: Sequence[str]) -> tuple[tuple[str, ...], np.ndarray]:
        """Distinct texts in first-seen order, and each item's row among them."""
        row_of: dict[str, int] = {}
        rows = np.fromiter((row_of.setdefault(t, len(row_of)) for t in texts), np.int64, len(texts))
        return tuple(row_of), rows

    @classmethod
    def embed(
        cls, texts: Sequence[str], embedder: TextEmbedder, progress: bool = False
    ) -> EmbeddedTexts:
        """Embed the distinct texts of ``texts``."""
        unique, rows = cls.dedupe(texts)
        return cls(unique, _checked(embedder.embed(unique, progress=progress), len(unique)), rows)

    @classmethod
    def from_vectors(cls, texts: Sequence[str], vectors: np.ndarray) -> EmbeddedTexts:
        """Wrap precomputed per-item vectors (the last vector of a repeated text wins)."""
        unique, rows = cls.dedupe(texts)
        vectors = _checked(np.asarray(vectors, dtype=np.float32), len(texts))
        table = np.zeros((len(unique), vectors.shape[1]), dtype=np.float32)
        table[rows] = vectors
        return cls(unique, table, rows)

    def row_of(self, text: str) -> int | None:
        """Row of ``text`` in :attr:`vectors`, or ``None`` when it was not embedded."""
        if not self._row_of and self.unique_texts:
            self._row_of.update((t, i) for i, t in enumerate(self.unique_texts))
        return self._row_of.get(text)

    def similarity(self, query: np.ndarray) -> np.ndarray:
        """Cosine similarity of every item to a unit-norm ``query`` (float32, one per item)."""
        return (self.vectors @ np.asarray(query, dtype=np.float32))[self.rows]

    def vectors_of(self, texts: Sequence[str], embedder: TextEmbedder | None) -> np.ndarray:
        """Vectors for arbitrary ``texts``: looked up here, the missing ones embedded now."""
        rows = np.array([self.row_of(t) if self.row_of(t) is not None else -1 for t in texts])
        out = np.zeros((len(texts), self.vectors.shape[1]), dtype=np.float32)
        known = rows >= 0
        out[known] = self.vectors[rows[known]]
        if not known.all():
            missing = [t for t, k in zip(texts, known, strict=True) if not k]
            if embedder is None:
                raise EmbeddingError(
                    f"{len(missing)} texts have no embedding (first: {missing[0]!r}) "
                    "and no embedder was given"
                )
            fresh = EmbeddedTexts.embed(missing, embedder)
            out[~known] = fresh.vectors[fresh.rows]
        return out


def _checked(vectors: np.ndarray, expected_rows: int) -> np.ndarray:
    if vectors.ndim != 2 or vectors.shape[0] != expected_rows:
        raise EmbeddingError(
            f"expected {expected_rows} embedding rows, got an array of shape {vectors.shape}"
        )
    if not np.isfinite(vectors).all():
        raise EmbeddingError("embeddings contain NaN or infinite values")
    return np.ascontiguousarray(vectors, dtype=np.float32)


@dataclass
class GraphIndex:
    """A :class:`TextualGraph` with the embeddings of its node and edge texts.

    Build it with :meth:`build` (embeds, with a disk cache) or :meth:`from_vectors`
    (precomputed vectors, e.g. in tests or from another pipeline).

    Parameters
    ----------
    graph : TextualGraph
        The graph.
    nodes, edges : EmbeddedTexts
        Vectors of the node texts and of the edge texts.
    edge_text : {"relation", "triple"}
        How edges were turned into text.
    embedder : TextEmbedder, optional
        Embeds questions and texts missing from the index (a candidate region's new nodes).
    """

    graph: TextualGraph
    nodes: EmbeddedTexts
    edges: EmbeddedTexts
    edge_text: EdgeTextMode = "relation"
    embedder: TextEmbedder | None = None

    def __post_init__(self) -> None:
        if len(self.nodes.rows) != self.graph.num_nodes:
            raise EmbeddingError(
                f"{len(self.nodes.rows)} node embeddings for {self.graph.num_nodes} nodes"
            )
        if len(self.edges.rows) != self.graph.num_edges:
            raise EmbeddingError(
                f"{len(self.edges.rows)} edge embeddings for {self.graph.num_edges} edges"
            )
        if self.nodes.vectors.size and self.edges.vectors.size:
            if self.nodes.vectors.shape[1] != self.edges.vectors.shape[1]:
                raise EmbeddingError("node and edge embeddings have different dimensions")

    @property
    def dimension(self) -> int:
        """Length of the embedding vectors."""
        return int(self.nodes.vectors.shape[1])

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_vectors(
        cls,
        graph: TextualGraph,
        node_vectors: np.ndarray,
        edge_vectors: np.ndarray,
        embedder: TextEmbedder | None = None,
        edge_text: EdgeTextMode = "relation",
    ) -> GraphIndex:
        """Index a graph with precomputed per-node and per-edge vectors (normalised here).

        Example
        -------
        >>> g = TextualGraph.from_triples([("a", "r", "b")])
        >>> idx = GraphIndex.from_vectors(g, np.eye(2), np.ones((1, 2)))
        >>> [round(float(v), 3) for v in idx.edges.vectors[0]]
        [0.707, 0.707]
        """
        from kgcore.embeddings import normalize_rows

        node_vectors = _checked(normalize_rows(node_vectors), graph.num_nodes)
        edge_vectors = _checked(
            normalize_rows(np.asarray(edge_vectors).reshape(graph.num_edges, -1)), graph.num_edges
        )
        # Items keep their own vectors: rows are the identity, whatever their texts.
        return cls(
            graph,
            EmbeddedTexts(graph.node_texts, node_vectors, np.arange(graph.num_nodes)),
            EmbeddedTexts(graph.edge_texts(edge_text), edge_vectors, np.arange(graph.num_edges)),
            edge_text,
            embedder,
        )

    @classmethod
    def build(
        cls,
        graph: TextualGraph,
        embedder: TextEmbedder | None = None,
        edge_text: EdgeTextMode = "relation",
        cache_dir: str | Path | None = "default",
        progress: bool = True,
    ) -> GraphIndex:
        """Embed a graph's node and edge texts, reusing the disk cache when it matches.

        Parameters
        ----------
        graph : TextualGraph
            The graph to index.
        embedder : TextEmbedder, optional
            Default: the offline all-MiniLM-L6-v2 (:func:`~kgcore.embeddings.default_embedder`).
        edge_text : {"relation", "triple"}
            Embed each edge's relation (the paper) or its ``"head relation tail"`` text.
        cache_dir : path, "default" or None
            Where the vectors are cached (``"default"``: :func:`default_cache_dir`);
            ``None`` disables the cache.
        progress : bool
            Show a progress bar while embedding.
        """
        check_edge_text_mode(edge_text)
        embedder = embedder if embedder is not None else default_embedder()
        cache_path = None
        if cache_dir is not None:
            folder = default_cache_dir() if cache_dir == "default" else Path(cache_dir)
            dimension = embedding_dimension(embedder)
            cache_path = folder / f"{cache_key(graph, embedder.model_id, edge_text, dimension)}.npz"
            cached = _load_cache(cache_path, graph, edge_text, embedder)
            if cached is not None:
                logger.info("loaded graph embeddings from %s", cache_path)
                return cached
        node_table = EmbeddedTexts.embed(graph.node_texts, embedder, progress=progress)
        edge_table = EmbeddedTexts.embed(graph.edge_texts(edge_text), embedder, progress=progress)
        index = cls(graph, node_table, edge_table, edge_text, embedder)
        if cache_path is not None:
            _save_cache(cache_path, index, embedder.model_id)
        return index

    # -- similarity --------------------------------------------------------------------
    def embed_query(self, question: str) -> np.ndarray:
        """Unit-norm vector of a question (needs :attr:`embedder`)."""
        if not isinstance(question, str) or not question.strip():
            raise InvalidQuestionError("the question must be a non-empty string")
        if self.embedder is None:
            raise EmbeddingError("this index has no embedder to embed the question with")
        vector = _checked(self.embedder.embed([question]), 1)[0]
        if vector.shape[0] != self.dimension:
            raise EmbeddingError(
                f"question embedding has {vector.shape[0]} dimensions, the index {self.dimension}"
            )
        return vector

    def node_similarity(self, query: np.ndarray) -> np.ndarray:
        """Cosine similarity of every node to ``query``."""
        return self.nodes.similarity(query)

    def edge_similarity(self, query: np.ndarray) -> np.ndarray:
        """Cosine similarity of every edge to ``query``."""
        return self.edges.similarity(query)


def cache_key(
    graph: TextualGraph, model_id: str, edge_text: str, dimension: int | None = None
) -> str:
    """File stem of a graph's cached embeddings: a hash of content, model, vector length and
    edge mode (two models of one name and different lengths never share a file)."""
    key = f"v{CACHE_VERSION}|{graph.content_hash()}|{model_id}|{edge_text}"
    if dimension is not None:
        key += f"|{dimension}d"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _vectors_checksum(arrays: Sequence[np.ndarray]) -> str:
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def _save_cache(path: Path, index: GraphIndex, model_id: str) -> None:
    from kgcore.gretriever.text_cache import write_atomically

    arrays = {
        "node_vectors": index.nodes.vectors,
        "node_rows": index.nodes.rows,
        "edge_vectors": index.edges.vectors,
        "edge_rows": index.edges.rows,
    }
    meta = {
        "version": CACHE_VERSION,
        "model_id": model_id,
        "edge_text": index.edge_text,
        "checksum": _vectors_checksum(list(arrays.values())),
    }
    # A unique temporary file renamed into place: readers never see half a file, and two
    # processes writing the same cache both succeed, the last rename leaving one whole file.
    write_atomically(path, {"meta": np.array(json.dumps(meta)), **arrays})


def _load_cache(
    path: Path, graph: TextualGraph, edge_text: EdgeTextMode, embedder: TextEmbedder
) -> GraphIndex | None:
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            if meta.get("version") != CACHE_VERSION or meta.get("model_id") != embedder.model_id:
                return None
            node_unique, _ = EmbeddedTexts.dedupe(graph.node_texts)
            edge_unique, _ = EmbeddedTexts.dedupe(graph.edge_texts(edge_text))
            arrays = [data[k] for k in ("node_vectors", "node_rows", "edge_vectors", "edge_rows")]
            if meta.get("checksum") != _vectors_checksum(arrays):
                raise EmbeddingError("checksum mismatch")
            nodes = EmbeddedTexts(node_unique, arrays[0], arrays[1])
            edges = EmbeddedTexts(edge_unique, arrays[2], arrays[3])
        return GraphIndex(graph, nodes, edges, edge_text, embedder)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, EmbeddingError) as err:
        logger.warning("embedding cache %s is damaged (%s): rebuilding it", path, err)
        path.unlink(missing_ok=True)
        return None
