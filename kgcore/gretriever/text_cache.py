"""An on-disk cache of text embeddings that grows with use: each text is embedded once.

G-Retriever embeds only the candidate region of a question (its topic entities'
neighbourhood), so the first question on a large graph costs seconds, not the whole graph. The
vectors of every text embedded so far are kept in :class:`TextVectorCache`, one folder per
model and vector length (two models that share a name but not a dimension never share
vectors), as append-only *shard* files:

- a shard holds some texts, their vectors and a SHA-256 checksum of both; a truncated, empty or
  bit-flipped shard fails its check on loading, is deleted and its texts are embedded again;
- a shard is written to a unique temporary file and renamed into place, so a reader never sees
  half a file, and two processes filling the cache at once each add their own shard (a text in
  both gets the same vector from the same model);
- when there are many shards, they are merged into one (written the same way) and the merged
  ones removed.

:class:`CachedEmbedder` puts the cache in front of any :class:`TextEmbedder`.

Example
-------
>>> import tempfile
>>> class Letters:
...     model_id = "letters"
...     def embed(self, texts, progress=False):
...         return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
>>> folder = tempfile.mkdtemp()
>>> cached = CachedEmbedder(Letters(), TextVectorCache(folder, "letters"))
>>> cached.embed(["ab", "c"]).tolist(), cached.embedded_count
([[2.0, 1.0], [1.0, 1.0]], 2)
>>> again = CachedEmbedder(Letters(), TextVectorCache(folder, "letters"))  # a later process
>>> again.embed(["c", "ab"]).tolist(), again.embedded_count
([[1.0, 1.0], [2.0, 1.0]], 0)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgcore.embeddings import TextEmbedder, embedding_dimension
from kgcore.exceptions import EmbeddingError

logger = logging.getLogger(__name__)

#: Bump when the shard layout changes.
SHARD_VERSION = 1
#: More shards than this are merged into one when the cache is next written.
MAX_SHARDS = 32
#: Errors that mark a shard as unreadable (numpy raises several kinds on damaged zip files).
_DAMAGED = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, EmbeddingError)


def checksum(texts: Sequence[str], vectors: np.ndarray) -> str:
    """SHA-256 of the texts (JSON) and the vectors' bytes."""
    digest = hashlib.sha256(json.dumps(list(texts), ensure_ascii=False).encode("utf-8"))
    digest.update(np.ascontiguousarray(vectors, dtype=np.float32).tobytes())
    return digest.hexdigest()


def write_atomically(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write an ``.npz`` to a unique temporary file beside ``path``, then rename it over ``path``.

    The temporary name is unique per writer (``mkstemp``), so concurrent writers never share one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as sink:
            np.savez(sink, **arrays)  # type: ignore[arg-type]
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _model_folder(model_id: str, dimension: int | None = None) -> str:
    key = model_id if dimension is None else f"{model_id}|{dimension}d"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


class TextVectorCache:
    """Vectors of texts embedded by one model, in a folder of checksummed shards.

    Parameters
    ----------
    root : path
        The cache folder (e.g. ``.kgcache/gretriever/texts``); each model and vector length
        gets a subfolder.
    model_id : str
        The embedding model's id (:attr:`TextEmbedder.model_id`).
    dimension : int, optional
        The length of the model's vectors, part of the key; :class:`CachedEmbedder` sets it
        (:meth:`keyed_by_dimension`) before the first lookup. A vector of another length is
        refused.
    """

    def __init__(self, root: str | Path, model_id: str, dimension: int | None = None) -> None:
        self.model_id = model_id
        self.root = Path(root)
        self.dimension = dimension
        self.folder = self.root / _model_folder(model_id, dimension)
        self._rows: dict[str, tuple[int, int]] = {}
        self._blocks: list[np.ndarray] = []
        self._loaded_shards: set[str] = set()
        self._lock = threading.Lock()
        self.rejected: list[Path] = []

    def __len__(self) -> int:
        return len(self._rows)

    def keyed_by_dimension(self, dimension: int) -> None:
        """Key the cache by the model's vector length too (its folder then holds only vectors
        of ``dimension`` numbers); called before anything is read."""
        with self._lock:
            if self.dimension == dimension:
                return
            if self._rows or self._loaded_shards:
                raise EmbeddingError("the cache was read before its vector length was set")
            self.dimension = dimension
            self.folder = self.root / _model_folder(self.model_id, dimension)

    # -- reading -------------------------------------------------------------------------
    def _shards(self) -> list[Path]:
        return sorted(self.folder.glob("shard-*.npz")) if self.folder.is_dir() else []

    def _read_shard(self, path: Path) -> tuple[list[str], np.ndarray] | None:
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                texts = [str(t) for t in data["texts"].tolist()]
                vectors = np.asarray(data["vectors"], dtype=np.float32)
            if meta.get("version") != SHARD_VERSION or meta.get("model_id") != self.model_id:
                raise EmbeddingError("written by another version or model")
            if vectors.ndim != 2 or vectors.shape[0] != len(texts):
                raise EmbeddingError(f"{len(texts)} texts but vectors of shape {vectors.shape}")
            if self.dimension is not None and vectors.shape[1] != self.dimension:
                raise EmbeddingError(f"vectors of {vectors.shape[1]} numbers, not {self.dimension}")
            if meta.get("checksum") != checksum(texts, vectors):
                raise EmbeddingError("checksum mismatch")
        except FileNotFoundError:
            return None  # merged away by another process meanwhile
        except _DAMAGED as err:
            logger.warning("embedding cache shard %s is damaged (%s): rebuilding it", path, err)
            self.rejected.append(path)
            path.unlink(missing_ok=True)
            return None
        return texts, vectors

    def refresh(self) -> None:
        """Load the shards written since the last call (by this or another process)."""
        with self._lock:
            for path in self._shards():
                if path.name in self._loaded_shards:
                    continue
                self._loaded_shards.add(path.name)
                read = self._read_shard(path)
                if read is None:
                    continue
                texts, vectors = read
                block = len(self._blocks)
                self._blocks.append(vectors)
                for row, text in enumerate(texts):
                    self._rows.setdefault(text, (block, row))

    def lookup(self, texts: Sequence[str]) -> tuple[np.ndarray | None, list[int]]:
        """Vectors of the cached ``texts`` (zero rows elsewhere) and the indices not cached."""
        with self._lock:
            found = [self._rows.get(t) for t in texts]
            missing = [i for i, hit in enumerate(found) if hit is None]
            if len(missing) == len(texts):
                return None, missing
            dim = next(self._blocks[b].shape[1] for b, _ in (h for h in found if h is not None))
            out = np.zeros((len(texts), dim), dtype=np.float32)
            for i, hit in enumerate(found):
                if hit is not None:
                    out[i] = self._blocks[hit[0]][hit[1]]
            return out, missing

    # -- writing -------------------------------------------------------------------------
    def add(self, texts: Sequence[str], vectors: np.ndarray) -> Path | None:
        """Add ``texts`` (distinct) with their vectors, as one new shard on disk."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise EmbeddingError(f"{len(texts)} texts but vectors of shape {vectors.shape}")
        if self.dimension is not None and texts and vectors.shape[1] != self.dimension:
            raise EmbeddingError(
                f"model {self.model_id!r} gave vectors of {vectors.shape[1]} numbers; this cache "
                f"holds its vectors of {self.dimension}"
            )
        if not texts:
            return None
        digest = checksum(texts, vectors)
        path = self.folder / f"shard-{digest[:24]}.npz"
        self._write(path, list(texts), vectors, digest)
        with self._lock:
            self._loaded_shards.add(path.name)
            block = len(self._blocks)
            self._blocks.append(vectors)
            for row, text in enumerate(texts):
                self._rows.setdefault(text, (block, row))
        if len(self._shards()) > MAX_SHARDS:
            self.compact()
        return path

    def _write(self, path: Path, texts: list[str], vectors: np.ndarray, digest: str) -> None:
        meta = {"version": SHARD_VERSION, "model_id": self.model_id, "checksum": digest}
        write_atomically(
            path,
            {"meta": np.array(json.dumps(meta)), "texts": np.array(texts), "vectors": vectors},
        )

    def compact(self) -> None:
        """Merge every shard into one (the merged shards are removed after it is in place)."""
        self.refresh()
        shards = self._shards()
        with self._lock:
            texts = list(self._rows)
            if not texts:
                return
            vectors = np.stack([self._blocks[b][r] for b, r in self._rows.values()])
        digest = checksum(texts, vectors)
        merged = self.folder / f"shard-{digest[:24]}.npz"
        self._write(merged, texts, vectors, digest)
        for path in shards:
            if path != merged:
                path.unlink(missing_ok=True)
        with self._lock:
            self._loaded_shards.add(merged.name)


class CachedEmbedder:
    """A :class:`TextEmbedder` that embeds only texts missing from a :class:`TextVectorCache`.

    The cache is keyed by the model's id and the length of its vectors, learned at the first
    :meth:`embed` (:func:`~kgcore.embeddings.embedding_dimension`: the embedder's
    ``dimension``, else one text embedded), so two models of one name and different lengths
    keep apart.

    Parameters
    ----------
    embedder : TextEmbedder
        Embeds the texts the cache lacks.
    cache : TextVectorCache
        Where vectors are kept across calls and processes.
    """

    def __init__(self, embedder: TextEmbedder, cache: TextVectorCache) -> None:
        if cache.model_id != embedder.model_id:
            raise EmbeddingError(
                f"cache of model {cache.model_id!r} used with embedder {embedder.model_id!r}"
            )
        self.embedder = embedder
        self.cache = cache
        self.model_id = embedder.model_id
        #: Texts embedded by the model (not found in the cache) so far.
        self.embedded_count = 0
        self._keyed = False
        self._key_lock = threading.Lock()

    def _key_cache(self) -> None:
        """Key the cache by the vector length (once), then read what it holds."""
        with self._key_lock:
            if not self._keyed:
                self.cache.keyed_by_dimension(embedding_dimension(self.embedder))
                self.cache.refresh()
                self._keyed = True

    @property
    def uncached(self) -> TextEmbedder:
        """The wrapped embedder (for one-off texts such as questions, kept out of the cache)."""
        return self.embedder

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Vectors of ``texts``: from the cache, the missing distinct ones embedded and added."""
        self._key_cache()
        texts = list(texts)
        known, missing = self.cache.lookup(texts)
        if not missing:
            assert known is not None
            return known
        new = list(dict.fromkeys(texts[i] for i in missing))
        vectors = np.asarray(self.embedder.embed(new, progress=progress), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(new):
            raise EmbeddingError(f"expected {len(new)} embedding rows, got shape {vectors.shape}")
        self.embedded_count += len(new)
        self.cache.add(new, vectors)
        out, still_missing = self.cache.lookup(texts)
        if still_missing or out is None:
            raise EmbeddingError("the embedding cache lost texts it was just given")
        return out
