"""A bounded, thread-safe cache of text embeddings (:class:`BoundedTextVectors`).

FastToG embeds the question and its candidate communities' texts at every similarity choice,
and the same relation paths question after question; a text is embedded once while it is in
the cache. Rows are kept in float32 (what the embedders return), at most ``capacity`` of them
(least recently used dropped first), so the cache's memory is bounded: 20,000 rows of 384
numbers are 31 MB. Concurrent questions share it safely: the lock guards the table, never an
embedding call.

Example
-------
>>> import numpy as np
>>> calls = []
>>> def embed(texts):
...     calls.append(list(texts))
...     return np.array([[float(len(t)), 1.0] for t in texts])
>>> cache = BoundedTextVectors(embed, capacity=2)
>>> cache.vectors(["ab", "c", "ab"]).tolist()
[[2.0, 1.0], [1.0, 1.0], [2.0, 1.0]]
>>> cache.vectors(["c"]).tolist(), calls  # "c" was kept: no second call
([[1.0, 1.0]], [['ab', 'c']])
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["BoundedTextVectors"]

#: Rows kept by default (31 MB of 384-dimensional float32 rows).
DEFAULT_CAPACITY = 20_000


class BoundedTextVectors:
    """Embeddings of texts, each computed once while cached (least recently used dropped).

    Parameters
    ----------
    embed : callable
        ``embed(texts) -> (n, dim)`` array: the embedding call, made once per
        :meth:`vectors` for the texts not cached.
    capacity : int
        Rows kept at most.
    """

    def __init__(self, embed: Callable[[list[str]], Any], capacity: int = DEFAULT_CAPACITY):
        self.embed = embed
        self.capacity = int(capacity)
        self._rows: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._rows)

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """The ``(len(texts), dim)`` float64 embeddings of ``texts``, in order."""
        texts = list(texts)
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for text in texts:
                row = self._rows.get(text)
                if row is not None:
                    self._rows.move_to_end(text)
                    found[text] = row
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            rows = np.asarray(self.embed(missing), dtype=np.float32)
            # One copy per row: a view would keep its whole batch (and the tensor behind it)
            # alive for as long as any one row stays cached.
            fresh = {text: row.copy() for text, row in zip(missing, rows, strict=True)}
            found.update(fresh)
            with self._lock:
                self._rows.update(fresh)
                while len(self._rows) > self.capacity:
                    self._rows.popitem(last=False)
        return np.vstack([found[t] for t in texts]).astype(np.float64)

    def clear(self) -> None:
        """Forget every row."""
        with self._lock:
            self._rows.clear()
