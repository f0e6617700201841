"""The one fake sentence embedder of the test suite: deterministic, seeded, no model.

:class:`FakeEmbedder` implements what the library asks of an embedder
(:class:`kgcore.embeddings.TextEmbedder`: ``model_id`` and ``embed(texts, progress=False)``
returning L2-normalised ``float32`` rows), and LangChain's method names (``embed_documents``,
``embed_query``) for tests that want plain lists.

Every vector comes from :func:`hashlib.shake_256` of the seed and a token, never from Python's
``hash()``: the same texts give the same vectors in every process, whatever ``PYTHONHASHSEED``
is (``tests/support/test_fake_embedder.py`` checks it in a subprocess).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np

#: What a vector is made of: one vector per word (bag of words), or per whole text.
Unit = Literal["word", "text"]
#: A word: letters and digits (``directed_by`` is two words, ``"1963"`` one).
_WORD = re.compile(r"[^\W_]+")
#: Default length of the vectors.
DEFAULT_DIM = 8


def _hashed_vector(seed: int, token: str, dim: int) -> np.ndarray:
    """A vector of ``dim`` numbers in ``[-1, 1)`` drawn from the hash of ``seed`` and ``token``."""
    digest = hashlib.shake_256(f"{seed}\x1f{token}".encode()).digest(4 * dim)
    numbers = np.frombuffer(digest, dtype="<u4").astype(np.float64)
    return numbers / 2.0**31 - 1.0


class FakeEmbedder:
    """A deterministic, seeded stand-in for a sentence embedding model.

    By default it is a bag-of-words embedder: each word (lower-cased, split on anything that
    is not a letter or a digit) has a pseudo-random vector drawn from a hash of the word and
    ``seed``; a text's vector is the sum of its words' vectors, L2-normalised. Texts that
    share words are similar; unrelated words are nearly orthogonal in enough dimensions.

    Parameters
    ----------
    dim : int, optional
        Length of the vectors (default 8, or the length of the ``vectors`` given).
    seed : int
        Picks the pseudo-random vectors: another seed, other (equally deterministic) vectors.
    unit : {"word", "text"}
        ``"word"`` (default): a bag of words, as above. ``"text"``: one pseudo-random vector
        per whole text, taken as is (``"Cleopatra"`` and ``"cleopatra"`` differ; texts that
        share words are no more similar than any others).
    keywords : sequence of str, optional
        Words to make similar on purpose (``unit="word"`` only): each keyword owns one
        dimension of its own, where it counts ``keyword_weight`` per occurrence, and every
        other word is drawn in the remaining ``dim - len(keywords)`` dimensions. Two texts
        that name the same keyword are then close, whatever their other words.
    keyword_weight : float
        How much a keyword outweighs the other words (default 4.0).
    vectors : mapping of str to sequence of float, optional
        Fixed vectors for given texts (matched exactly), normalised unless already of unit
        length (then returned bit for bit); any other text is embedded as ``unit`` says.
    model_id : str, optional
        The name used in embedding cache keys. By default it names the class, the settings
        and a digest of ``keywords`` and ``vectors``, so two fakes that embed differently never
        share a cache.

    Attributes
    ----------
    embedded : list of str
        Every text embedded so far, in order (a test can tell whether a cache was used).
    calls : int
        How many times :meth:`embed` was called.

    Examples
    --------
    >>> embedder = FakeEmbedder(dim=16, seed=7)
    >>> rows = embedder.embed(["who directed Cleopatra", "Cleopatra directed_by", "a year"])
    >>> rows.shape, rows.dtype
    ((3, 16), dtype('float32'))
    >>> bool(np.allclose(np.linalg.norm(rows, axis=1), 1.0))
    True
    >>> bool(rows[0] @ rows[1] > rows[0] @ rows[2])   # two shared words
    True
    >>> [round(float(x), 3) for x in FakeEmbedder(dim=4, seed=0).embed(["film"])[0]]
    [0.739, 0.484, 0.133, -0.451]
    >>> [round(float(x), 3) for x in FakeEmbedder(dim=4, seed=1).embed(["film"])[0]]
    [0.386, 0.523, 0.666, 0.366]
    >>> keyed = FakeEmbedder(dim=8, keywords=("directed",))
    >>> q, near, far = keyed.embed(["directed by whom", "directed_by Mankiewicz", "whom"])
    >>> bool(q @ near > q @ far)
    True
    >>> embedder.calls, embedder.embedded[-1]
    (1, 'a year')
    """

    def __init__(
        self,
        dim: int | None = None,
        seed: int = 0,
        *,
        unit: Unit = "word",
        keywords: Sequence[str] = (),
        keyword_weight: float = 4.0,
        vectors: Mapping[str, Sequence[float]] | None = None,
        model_id: str | None = None,
    ) -> None:
        if unit not in ("word", "text"):
            raise ValueError(f"unit must be 'word' or 'text', got {unit!r}")
        self.vectors = {
            text: self._unit_row(np.asarray(v, dtype=np.float32))
            for text, v in (vectors or {}).items()
        }
        lengths = {len(v) for v in self.vectors.values()}
        if len(lengths) > 1:
            raise ValueError(f"the fixed vectors differ in length: {sorted(lengths)}")
        if dim is None:
            dim = lengths.pop() if lengths else DEFAULT_DIM
        elif lengths and lengths != {dim}:
            raise ValueError(f"dim={dim} but the fixed vectors have length {lengths.pop()}")
        self.keywords = tuple(k.lower() for k in keywords)
        if self.keywords and unit != "word":
            raise ValueError("keywords need unit='word'")
        for keyword in self.keywords:
            if _WORD.fullmatch(keyword) is None:
                raise ValueError(f"a keyword is one word of letters and digits, got {keyword!r}")
        if dim <= len(self.keywords):
            raise ValueError(f"dim={dim} leaves no room beside {len(self.keywords)} keywords")
        self.dim = dim
        self.seed = seed
        self.unit = unit
        self.keyword_weight = float(keyword_weight)
        if model_id is None:
            settings = repr((self.keywords, self.keyword_weight, sorted(self.vectors)))
            fixed = b"".join(v.tobytes() for _, v in sorted(self.vectors.items()))
            digest = hashlib.blake2b(settings.encode() + fixed, digest_size=4).hexdigest()
            model_id = f"fake-{unit}-{dim}d-seed{seed}-{digest}"
        self.model_id = model_id
        self.embedded: list[str] = []
        self.calls = 0

    @property
    def dimension(self) -> int:
        """Length of the embedding vectors (as :class:`SentenceTransformerEmbedder` has it)."""
        return self.dim

    @staticmethod
    def _unit_row(vector: np.ndarray) -> np.ndarray:
        norm = float(np.linalg.norm(vector.astype(np.float64)))
        if norm == 0.0 or abs(norm - 1.0) < 1e-6:
            return vector
        return (vector / norm).astype(np.float32)

    def _vector(self, text: str) -> np.ndarray:
        if text in self.vectors:
            return self.vectors[text]
        out = np.zeros(self.dim, dtype=np.float64)
        if self.unit == "text":
            out += _hashed_vector(self.seed, text, self.dim)
        else:
            first = len(self.keywords)
            for word in _WORD.findall(text.lower()):
                if word in self.keywords:
                    out[self.keywords.index(word)] += self.keyword_weight
                else:
                    drawn = _hashed_vector(self.seed, word, self.dim - first)
                    out[first:] += drawn / np.linalg.norm(drawn)
        norm = float(np.linalg.norm(out))
        return (out / norm if norm else out).astype(np.float32)

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """An ``(len(texts), dim)`` ``float32`` matrix of unit rows (a text without a word:
        a zero row)."""
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise TypeError("every text to embed must be a string")
        self.calls += 1
        self.embedded.extend(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """:meth:`embed` as lists (LangChain's name)."""
        return [[float(x) for x in row] for row in self.embed(texts)]

    def embed_query(self, text: str) -> list[float]:
        """One text's vector as a list (LangChain's name)."""
        return self.embed_documents([text])[0]

    def __repr__(self) -> str:
        return f"FakeEmbedder(dim={self.dim}, seed={self.seed}, unit={self.unit!r})"
