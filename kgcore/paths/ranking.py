"""Relation paths ranked by closeness to a question: sentence embeddings when there is an
embedder, else shared words; hop by hop where the question is a chain of relation phrases
("the nation of the spouse of X's dad", :mod:`kgcore.paths.question_chain`).
:mod:`kgcore.paths.reading` follows the best of them on the graph.

Example
-------
>>> from kgcore.paths.walk import Hop
>>> paths = [RelationPath("X", (Hop(r),), {"Y": 1}, {"Y"}, ()) for r in ("born in", "child")]
>>> rank_paths("who is the child of X", paths, None, ["X"])
[1, 0]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kgcore.paths.question_chain import chain_phrases, chain_readings, question_ends
from kgcore.paths.settings import NAMED_HOP_COST, NAMED_RELATIONS_MAX
from kgcore.paths.walk import RelationPath
from kgcore.text.relations import verbalize_relation

__all__ = [
    "PathScorer",
    "mentioned_relations",
    "path_scorer",
    "rank_paths",
    "word_scores",
]

#: ``(question, topic, paths) -> one score per path``, higher is closer.
PathScorer = Callable[[str, Sequence[str], Sequence[RelationPath]], Sequence[float]]
#: Subtracted from a path's score per hop read against its relation's direction: a graph names
#: a relation from its head, as a question asks it ("Ann's child"), so of two paths that read
#: alike the one read forwards comes first.
REVERSE_HOP_COST = 0.03
#: The same in a question asked as a chain of relation phrases, where each hop is compared
#: with a phrase: a hop read backwards is written with its relation's name ("parents of",
#: the node whose parents hold this one: a child) and so looks like the phrase it is not.
#: How 0.15 was decided: ``docs/research/path_planning.md`` ("After the dev runs").
CHAIN_REVERSE_HOP_COST = 0.15
#: Subtracted from a path's score when the question is a chain of relation phrases
#: (:func:`~kgcore.paths.question_chain.chain_readings`) but of another length than the path.
CHAIN_LENGTH_COST = 0.3
#: The weight of the question-ends closeness (:func:`~kgcore.paths.question_chain.
#: question_ends`: the first hop against the words around the topic entity, the last hop
#: against the question's first and last words). How 1.0 was decided:
#: ``docs/research/path_planning.md`` ("After the dev runs").
ENDS_WEIGHT = 1.0
#: Subtracted per "of" read as part of a relation name rather than a link of the chain
#: ("cause of death"), so that the plainest reading of a chain wins.
CHAIN_JOIN_COST = 0.15
#: The cosine (sentence embeddings) at which a word of the question names a relation
#: (:func:`mentioned_relations`).
MENTION_THRESHOLD = 0.5


_WORD = re.compile(r"[a-z0-9]+")


#: Words that say nothing of a relation.
_STOP_WORDS = frozenset(
    "a an and are by for from in is it of on or the to was were what which who whom with".split()
)


def _words(text: str) -> set[str]:
    words = (w for w in _WORD.findall(text.lower()) if w not in _STOP_WORDS)
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words}


def _share(phrase: str, asked: set[str]) -> float:
    words = _words(phrase)
    return len(words & asked) / len(words) if words else 0.0


def word_scores(question: str, texts: Sequence[str]) -> list[float]:
    """Shared-word closeness: for each text (hops joined by ``" / "``), the mean over its hops
    of the share of the hop's words that the question has.

    >>> word_scores("who is the child of Ann", ["child", "born in", "child / born in"])
    [1.0, 0.0, 0.5]
    """
    asked = _words(question)
    scores = []
    for text in texts:
        shares = [_share(hop, asked) for hop in text.split(" / ")]
        scores.append(sum(shares) / len(shares) if shares else 0.0)
    return scores


Similarity = Callable[[str, Sequence[str]], Sequence[float]]


def _unit_rows(embed: Callable[[list[str]], Any], texts: list[str]) -> np.ndarray:
    """The embeddings of ``texts``, each scaled to length 1 (a zero row stays zero)."""
    rows = np.nan_to_num(np.asarray(embed(texts), dtype=np.float64))
    norms = np.linalg.norm(rows, axis=1)
    norms[norms == 0] = 1.0
    return rows / norms[:, None]


def _cosines(embed: Callable[[list[str]], Any]) -> Similarity:
    def similarity(text: str, others: Sequence[str]) -> list[float]:
        rows = _unit_rows(embed, [text, *others])
        return [float(x) for x in rows[1:] @ rows[0]]

    return similarity


def mentioned_relations(
    question: str,
    topic: Sequence[str],
    relations: Sequence[str],
    embed: Callable[[list[str]], Any],
) -> set[str]:
    """The relations (phrases) that ``question`` names: for each of its words outside the
    topic entities' names (no stop words), the relation closest to it, when their cosine is at
    least :data:`MENTION_THRESHOLD`.

    >>> def embed(texts):  # a toy embedder: which of three stems a text holds
    ...     return [[float(stem in t) for stem in ("direct", "wr", "star")] for t in texts]
    >>> sorted(mentioned_relations("who wrote films directed by Ann", ["Ann"],
    ...     ["directed by", "written by", "starred actors"], embed))
    ['directed by', 'written by']
    """
    text = question.lower()
    for name in topic:
        text = text.replace(name.lower(), " ")
    words = sorted(_words(text))
    relations = sorted(set(relations))
    if not words or not relations:
        return set()
    rows = _unit_rows(embed, [*words, *relations])
    cosines = rows[: len(words)] @ rows[len(words) :].T
    return {
        relations[int(row.argmax())] for row in cosines if float(row.max()) >= MENTION_THRESHOLD
    }


def _word_similarity(text: str, others: Sequence[str]) -> list[float]:
    asked = _words(text)
    return [_share(other, asked) for other in others]


def path_scorer(
    embed: Callable[[list[str]], Any] | None = None, *, embed_caches: bool = False
) -> PathScorer:
    """A :data:`PathScorer`: each path's closeness to the question, hop by hop where the
    question is a chain of relation phrases.

    - the similarity of the path's text to the question (cosine of ``embed``'s sentence
      embeddings, plus a tenth of the shared-word score; the shared-word score alone without
      ``embed``);
    - where the question reads as a chain of as many relation phrases as the path has hops
      (:func:`~kgcore.paths.question_chain.chain_readings`: "the nation of the spouse of X's
      dad"), plus the mean similarity of each hop to the phrase asked at that hop (the best
      reading, less :data:`CHAIN_JOIN_COST` per "of" read inside a relation name); a path of
      another length loses :data:`CHAIN_LENGTH_COST`;
    - :data:`REVERSE_HOP_COST` less per hop read backwards, and (a question not read as a
      chain, with ``embed``, at most :data:`~kgcore.paths.settings.NAMED_RELATIONS_MAX`
      relation names in the paths) :data:`~kgcore.paths.settings.NAMED_HOP_COST` less per hop
      past the first whose relation the question does not name (:func:`mentioned_relations`).

    ``embed_caches``: ``embed`` keeps what it embedded (FastToG's ``embed_cached``), so every
    text compared is embedded first in one batch.

    >>> from kgcore.paths.walk import Hop
    >>> paths = [RelationPath("X", hops, {"Y": 1}, {"Y"}, ()) for hops in (
    ...     (Hop("parents"), Hop("spouse")), (Hop("spouse"), Hop("parents")))]
    >>> scores = path_scorer()("the spouse of X 's parents ?", ["X"], paths)
    >>> scores[0] > scores[1]
    True
    """
    similarity = _cosines(embed) if embed is not None else _word_similarity

    def score(question: str, topic: Sequence[str], paths: Sequence[RelationPath]) -> list[float]:
        texts = [p.label() for p in paths]
        base = list(similarity(question, texts)) if embed is not None else [0.0] * len(paths)
        words = word_scores(question, texts)
        scores = [
            b + (0.1 if embed is not None else 1.0) * w for b, w in zip(base, words, strict=True)
        ]
        phrases = len(chain_phrases(question, topic))
        readings: dict[int, list[list[str]]] = {}
        ends = question_ends(question, topic) if not phrases else None
        if embed is not None and embed_caches and (ends is not None or phrases):
            # Every text compared below, embedded in one batch rather than per path and hop.
            wanted: list[str] = [] if ends is None else [*ends]
            for path in paths:
                wanted += [hop.text() for hop in path.hops]
                if phrases and len(path.hops) not in readings:
                    readings[len(path.hops)] = chain_readings(question, topic, len(path.hops))
            wanted += [p for found in readings.values() for reading in found for p in reading]
            embed(list(dict.fromkeys(wanted)))
        if embed is not None and not phrases:
            # A relation is named whichever way a hop reads it.
            hop_names = [[verbalize_relation(hop.relation) for hop in p.hops] for p in paths]
            relations = sorted({name for names in hop_names for name in names})
            if len(relations) <= NAMED_RELATIONS_MAX:
                asked = mentioned_relations(question, topic, relations, embed)
                for i, names in enumerate(hop_names):
                    unnamed = sum(name not in asked for name in names[1:])
                    scores[i] -= NAMED_HOP_COST * unnamed
        for i, path in enumerate(paths):
            reverse_cost = CHAIN_REVERSE_HOP_COST if phrases else REVERSE_HOP_COST
            scores[i] -= reverse_cost * sum(not hop.forward for hop in path.hops)
            if ends is not None:
                near, focus = ends
                first, last = path.hops[0].text(), path.hops[-1].text()
                scores[i] += (
                    ENDS_WEIGHT * (similarity(near, [first])[0] + similarity(focus, [last])[0]) / 2
                )
            if not phrases:
                continue
            k = len(path.hops)
            if k not in readings:
                readings[k] = chain_readings(question, topic, k)
            if not readings[k]:
                scores[i] -= CHAIN_LENGTH_COST
                continue
            hops = [hop.text() for hop in path.hops]
            best = max(_aligned(similarity, hops, reading) for reading in readings[k])
            scores[i] += best - CHAIN_JOIN_COST * (phrases - k)
        return scores

    return score


def _aligned(similarity: Similarity, hops: Sequence[str], phrases: Sequence[str]) -> float:
    """The mean similarity of each hop to the phrase at its place."""
    pairs = [similarity(phrase, [hop])[0] for hop, phrase in zip(hops, phrases, strict=True)]
    return float(sum(pairs) / len(pairs)) if pairs else 0.0


def rank_paths(
    question: str,
    paths: Sequence[RelationPath],
    scorer: PathScorer | None,
    topic: Sequence[str] = (),
) -> list[int]:
    """Path indexes, the closest to ``question`` first (equal scores: shorter, then in the
    order found); ``scorer`` defaults to the shared-word :func:`path_scorer`."""
    scores = (scorer or path_scorer())(question, topic, paths)
    return sorted(range(len(paths)), key=lambda i: (-float(scores[i]), len(paths[i].hops), i))
