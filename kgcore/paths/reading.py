"""Relation paths read on the graph: listed around the topic entities, ranked
(:mod:`kgcore.paths.ranking`), the best followed, and the answer set a followed path gives to
the names a model replied with. Graph reads only; no model call.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([
...     ("Ann", "child", "Bob"), ("Cid", "child", "Bob"), ("Cid", "birthplace", "Aurich")])
>>> followed, chained = read_paths(store, "the birthplace of the parent of Ann's child",
...                                ["Ann"], PathSettings())
>>> [f.label() for f in followed][:1], followed[0].answers
(['child / child of / birthplace'], ['Aurich'])
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from kgcore.graph.store import GraphStore
from kgcore.paths.question_chain import chain_readings
from kgcore.paths.ranking import PathScorer, rank_paths
from kgcore.paths.settings import BEAM, MAX_FACTS, MAX_FANOUT, MAX_FRONTIER, OFFERED, PathSettings
from kgcore.paths.walk import FollowedPath, RelationPath, follow_path, relation_paths
from kgcore.text.answer_forms import normalize_answer
from kgcore.validation import join_answers

__all__ = ["distinct_paths", "list_paths", "path_answer", "read_paths"]


def distinct_paths(paths: Sequence[RelationPath]) -> list[RelationPath]:
    """``paths`` without those that reach the same nodes as an earlier one (a graph that
    holds both "parents" and "children" offers each walk twice, once read backwards).

    >>> from kgcore.paths.walk import Hop
    >>> a = RelationPath("X", (Hop("parents"),), {"Y": 1}, {"Y"}, ())
    >>> b = RelationPath("X", (Hop("children", False),), {"Y": 1}, {"Y"}, ())
    >>> [p.label() for p in distinct_paths([a, b])]
    ['parents']
    """
    seen: set[tuple[str, frozenset[str]]] = set()
    kept = []
    for path in paths:
        key = (path.topic, frozenset(path.reached))
        if key not in seen:
            seen.add(key)
            kept.append(path)
    return kept


def _follow(store: GraphStore, path: RelationPath, topic: Sequence[str]) -> FollowedPath:
    """``path`` followed on the graph (:data:`~kgcore.paths.settings.MAX_FANOUT` nodes per
    hop, :data:`~kgcore.paths.settings.MAX_FACTS` facts kept), the topic entities left out of
    its answers unless it leads back to them alone."""
    return follow_path(
        store, path.topic, path.hops, max_fanout=MAX_FANOUT, max_facts=MAX_FACTS, exclude=topic
    )


def read_paths(
    store: GraphStore,
    question: str,
    topic: Sequence[str],
    settings: PathSettings,
    scorer: PathScorer | None = None,
    most: int | None = None,
) -> tuple[list[FollowedPath], bool]:
    """The :data:`~kgcore.paths.settings.OFFERED` relation paths closest to ``question`` that
    reach something (distinct, best first), each followed on the graph: what a reasoning step
    reads, no model call. A question asked as a chain of relation phrases ("the nation of the
    spouse of X's dad", :func:`~kgcore.paths.question_chain.chain_readings`) whose best path
    has a reading of its length is offered that path alone: its hops were matched phrase by
    phrase, and a small model reading several chains side by side loses its place. Returns
    the followed paths and whether the question was read as such a chain; ``most``: stop after
    that many paths that reach something (the rest are not walked)."""
    paths = list_paths(store, question, topic, settings, scorer)
    ranked = distinct_paths([paths[i] for i in rank_paths(question, paths, scorer, topic)])
    offered = OFFERED
    chained = bool(ranked) and bool(chain_readings(question, topic, len(ranked[0].hops)))
    if chained:
        offered = 1  # a chain question: the path aligned hop by hop with its phrases alone
    followed = (_follow(store, path, topic) for path in ranked[:offered])
    return list(islice((f for f in followed if f.answers), most)), chained


def path_answer(
    names: Sequence[str],
    followed: Sequence[FollowedPath],
    max_answers: int,
    expand: bool = True,
) -> tuple[str, FollowedPath] | None:
    """The answer a reply's ``names`` give through the followed paths: the first name that a
    path reaches (the best-ranked such path) and the reply's other names that this path
    reaches, in the reply's order, then the rest of that path's answers, when it reaches at
    most ``max_answers`` nodes and ``expand`` (the first name alone otherwise: with several
    topic entities a path leaves only one of them, and its other ends need not meet the
    others); ``None`` when no path reaches any of the names. The named nodes come first, so
    the cut to :data:`~kgcore.validation.MAX_ANSWER_CHARS` never drops one for a node the
    model did not name.

    A topic entity is reached only by a path that leads back to it and nowhere else
    (:func:`~kgcore.paths.walk.order_answers`), so this is how a loop-back answer is given.

    >>> from kgcore.paths.walk import FollowedPath, Hop
    >>> films = FollowedPath("X", (Hop("directed by"),), ["A", "B", "C"], [], False)
    >>> path_answer(["b"], [films], max_answers=10)[0]
    'B; A; C'
    >>> path_answer(["c", "Z", "b"], [films], max_answers=10)[0]
    'C; B; A'
    >>> path_answer(["Z"], [films], max_answers=10) is None
    True
    """
    keys = [normalize_answer(name) for name in names]
    for key in keys:
        if not key:
            continue
        for path in followed:
            ends = {normalize_answer(a): a for a in path.answers}
            if key in ends:
                if not expand or len(path.answers) > max_answers:
                    return ends[key], path
                named = list(dict.fromkeys(ends[k] for k in keys if k in ends))
                rest = [a for a in path.answers if a not in named]
                return join_answers([*named, *rest]), path
    return None


def list_paths(
    store: GraphStore,
    question: str,
    topic: Sequence[str],
    settings: PathSettings,
    scorer: PathScorer | None = None,
) -> list[RelationPath]:
    """The relation paths of up to ``settings.max_hops`` hops around the ``topic`` entities
    that reach a node: at each hop, the :data:`~kgcore.paths.settings.BEAM` paths closest to
    ``question`` are walked on (:func:`~kgcore.paths.ranking.rank_paths`)."""

    def closest(paths: list[RelationPath]) -> list[RelationPath]:
        if len(paths) <= BEAM:
            return paths
        return [paths[i] for i in rank_paths(question, paths, scorer, topic)[:BEAM]]

    listed = (
        relation_paths(store, t, settings.max_hops, MAX_FRONTIER, extend=closest) for t in topic
    )
    return [p for paths in listed for p in paths if p.reached]
