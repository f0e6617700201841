"""Similarity choices (this project's, not the paper's): communities ranked by sentence
embeddings instead of chosen by the LLM.

``first_choice`` and ``chain_choice`` say who chooses the first W communities and a chain's
next one: ``"llm"`` (the paper's fine pruning), ``"similarity"`` (the candidates closest to the
question, no LLM call) or ``"auto"`` (by similarity when the engine has an embedder). Why, and
what it measurably does: ``docs/research/fasttog_deviations.md`` (``first_choice``,
``chain_choice``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from kgcore.community.lcs import Community
from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.run_state import FastToGRun
from kgcore.methods.fasttog.texts import CommunityTexts
from kgcore.methods.kernel import report_step
from kgcore.text_vectors import BoundedTextVectors

if TYPE_CHECKING:
    from kgcore.embeddings import TextEmbedder

logger = logging.getLogger(__name__)


class SimilarityChoices:
    """The FastToG engine's similarity choices: who chooses, the embedder, the ranking (a part
    of :class:`~kgcore.methods.fasttog.engine.FastToG`).

    Parameters
    ----------
    config : FastToGConfig
        ``first_choice`` and ``chain_choice``.
    embedder : TextEmbedder, optional
        Sentence embeddings: with one, ``"auto"`` chooses by similarity; without, the offline
        all-MiniLM-L6-v2 is loaded at the first ``"similarity"`` ranking.
    texts : CommunityTexts
        How a candidate community is written (what is embedded).
    """

    def __init__(
        self, config: FastToGConfig, embedder: TextEmbedder | None, texts: CommunityTexts
    ) -> None:
        self.config = config
        self.given_embedder = embedder
        self._embedder = embedder
        self.texts = texts
        self._vectors = BoundedTextVectors(lambda texts: self.embedder.embed(texts))

    @property
    def first_choice(self) -> str:
        """How this engine chooses the first W communities: ``"llm"`` or ``"similarity"``
        (``first_choice="auto"`` resolved: by similarity when the engine has an embedder).

        >>> from kgcore.graph import InMemoryGraphStore
        >>> from kgcore.methods.fasttog import FastToG
        >>> FastToG(InMemoryGraphStore()).first_choice
        'llm'
        >>> class Constant:  # a toy embedder
        ...     def embed(self, texts, progress=False):
        ...         return np.ones((len(texts), 2))
        >>> FastToG(InMemoryGraphStore(), embedder=Constant()).first_choice
        'similarity'
        """
        return self._resolved(self.config.first_choice)

    @property
    def chain_choice(self) -> str:
        """How this engine chooses a chain's next community: ``"llm"`` or ``"similarity"``
        (``chain_choice="auto"`` resolved as :attr:`first_choice`)."""
        return self._resolved(self.config.chain_choice)

    def _resolved(self, choice: str) -> str:
        if choice != "auto":
            return choice
        return "similarity" if self._embedder is not None else "llm"

    @property
    def embedder(self) -> TextEmbedder:
        """The sentence embedder of ``first_choice="similarity"`` (built at the first use)."""
        if self._embedder is None:
            from kgcore.embeddings import default_embedder

            self._embedder = default_embedder()
        return self._embedder

    @property
    def ranks_by_similarity(self) -> bool:
        """Whether this engine ranks by sentence embeddings: it was given an embedder, or a
        choice is ``"similarity"`` (which loads the offline one)."""
        return self._embedder is not None or "similarity" in (
            self.first_choice,
            self.chain_choice,
        )

    def rank_by_similarity(self, question: str, candidates: Sequence[Community]) -> list[int]:
        """Candidate indexes, the text closest to ``question`` first (cosine similarity of
        sentence embeddings; equal scores keep the candidates' order).

        >>> from kgcore.community.lcs import Community
        >>> from kgcore.graph import InMemoryGraphStore
        >>> from kgcore.methods.fasttog import FastToG
        >>> class Letters:  # a toy embedder: counts of a few letters
        ...     def embed(self, texts, progress=False):
        ...         return np.array([[t.count(c) + 0.1 for c in "xyz"] for t in texts])
        >>> engine = FastToG(InMemoryGraphStore(), embedder=Letters())
        >>> options = [Community(("x",), (), ()), Community(("z",), (), ())]
        >>> engine.similarity.rank_by_similarity("zz", options)
        [1, 0]
        """
        scores = self.similarities(question, self.texts.texts(candidates))
        return sorted(range(len(candidates)), key=lambda i: -float(scores[i]))

    def similarities(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """The cosine similarity of each of ``texts`` to ``question`` (the embeddings cached:
        :meth:`embed_cached`)."""
        # An app's embedder may return unnormalised rows, or NaN for an empty text; in float64,
        # so that near ties rank the same in every run.
        vectors = np.nan_to_num(self.embed_cached([question, *texts]))
        norms = np.linalg.norm(vectors, axis=1)
        norms[norms == 0] = 1.0
        vectors = vectors / norms[:, None]
        return vectors[1:] @ vectors[0]

    def closest(
        self, run: FastToGRun, candidates: Sequence[Community], max_choices: int
    ) -> list[int]:
        """The similarity choice: the ``max_choices`` candidates closest to the question, with
        no LLM call (counted as graph time), recorded in the run's trace."""
        with run.meter.graph():
            picked = self.rank_by_similarity(run.question, candidates)[:max_choices]
        run.trace.append(
            report_step(
                {
                    "purpose": "prune",
                    "offered": [list(c.nodes) for c in candidates],
                    "picked": picked,
                    "ranked": "similarity",
                }
            )
        )
        return picked

    def prefetch(self, question: str, groups: Sequence[Sequence[Community]]) -> None:
        """Embed, in one call, the texts of every group of candidates a later choice may rank
        (the chains' next candidates at one depth): one batch costs less than one per chain."""
        texts = [t for group in groups if len(group) > 1 for t in self.texts.texts(group)]
        if texts:
            self.embed_cached([question, *texts])

    def embed_cached(self, texts: list[str]) -> np.ndarray:
        """Sentence embeddings of ``texts`` (float64 rows), each text embedded once while it
        is in the part's bounded :class:`~kgcore.text_vectors.BoundedTextVectors`: the question
        at each choice, and the relation paths and phrases question after question."""
        return self._vectors.vectors(texts)
