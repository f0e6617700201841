"""Relation paths on the graph: the ones that leave a topic entity, and one followed to its end.

A relation path is a sequence of hops, each a relation read forwards (head to tail) or backwards.
:func:`relation_paths` lists the paths of up to ``max_hops`` hops that the graph holds around a
topic entity, each with the nodes it reaches and one walk's facts as an example (one batch read
per hop); :func:`follow_path` walks one chosen path (one batch read per hop) and returns the nodes
it reaches, ordered as the evidence supports, with the facts along the way.

Both read through the store the caller gives, so with a
:class:`~kgcore.graph.compound.CompoundNodeView` a hop crosses an unnamed compound node
(``m.0w4dx1v``) as one compound relation. A walk never takes back the triple it just took
(a self-loop excepted: PathQuestion's "recording of recording of X" is one), and the fan-out of
every hop is capped; a capped walk says so (``capped``).

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([
...     ("Ann", "child", "Bob"), ("Cid", "child", "Bob"), ("Cid", "born in", "Aurich")])
>>> paths = relation_paths(store, "Ann", max_hops=3)
>>> [p.label() for p in paths][:3]
['child', 'child / child of', 'child / child of / born in']
>>> walked = follow_path(store, "Ann", paths[2].hops)
>>> walked.answers, walked.facts
(['Aurich'], [Triple(head='Ann', relation='child', tail='Bob'), \
Triple(head='Cid', relation='child', tail='Bob'), Triple(head='Cid', relation='born in', \
tail='Aurich')])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from kgcore.graph.store import GraphStore
from kgcore.text.relations import verbalize_relation
from kgcore.types import Triple

#: Triples read per node at each hop at most (a hub's first ones in canonical order).
READ_LIMIT = 200


@dataclasses.dataclass(frozen=True)
class Hop:
    """One step of a relation path: ``relation`` read from head to tail (``forward``) or back."""

    relation: str
    forward: bool = True

    def text(self, verbalize: Callable[[str], str] = verbalize_relation) -> str:
        """The hop as a person reads it: ``"child"``, or ``"child of"`` read backwards."""
        phrase = verbalize(self.relation)
        return phrase if self.forward else f"{phrase} of"


@dataclasses.dataclass
class _End:
    """A node a path prefix reaches: how many walks reach it, by which last triples, one
    walk's facts, and whether that walk repeats no node."""

    walks: int
    via: dict[Triple, int]
    facts: tuple[Triple, ...]
    simple: bool


@dataclasses.dataclass
class RelationPath:
    """A relation path from ``topic`` and what it reaches.

    ``reached`` maps each reached node to the number of walks that reach it; ``simple`` holds
    the nodes reached by a walk that repeats no node; ``example`` is one walk's facts;
    ``capped`` says a fan-out cap cut the walks short.
    """

    topic: str
    hops: tuple[Hop, ...]
    reached: dict[str, int]
    simple: set[str]
    example: tuple[Triple, ...]
    capped: bool = False

    def label(self, verbalize: Callable[[str], str] = verbalize_relation) -> str:
        """The hops as a person reads them, joined by ``" / "``."""
        return " / ".join(hop.text(verbalize) for hop in self.hops)

    def answers(self, exclude: Sequence[str] = ()) -> list[str]:
        """The reached nodes, ordered as the evidence supports (:func:`order_answers`)."""
        return order_answers(self.reached, self.simple, exclude)


def order_answers(
    reached: dict[str, int], simple: set[str], exclude: Sequence[str] = ()
) -> list[str]:
    """Reached nodes, best supported first: those a walk that repeats no node reaches, then
    by the number of walks, then in the order found. ``exclude`` (the topic entities) are
    left out unless nothing else is reached: a path may lead back to where it started.

    >>> order_answers({"A": 1, "B": 3, "T": 5}, {"A", "B"}, exclude=["T"])
    ['B', 'A']
    >>> order_answers({"T": 2}, set(), exclude=["T"])
    ['T']
    """
    order = {node: i for i, node in enumerate(reached)}
    ranked = sorted(reached, key=lambda n: (n not in simple, -reached[n], order[n]))
    others = [n for n in ranked if n not in exclude]
    return others or ranked


def _step(
    ends: dict[str, _End],
    read: Mapping[str, Sequence[Triple]],
    max_frontier: int,
    key: Callable[[Triple, str], Hop | None],
) -> tuple[dict[Hop, dict[str, _End]], bool]:
    """Every end one hop further, grouped by the hop taken (``key`` names it, ``None`` skips
    the triple); whether a cap cut it."""
    grown: dict[Hop, dict[str, _End]] = {}
    capped = len(ends) > max_frontier
    for node, end in list(ends.items())[:max_frontier]:
        triples = read.get(node, ())
        capped = capped or len(triples) >= READ_LIMIT
        seen = {node, *(n for t in end.facts for n in (t.head, t.tail))}
        for triple in triples:
            hop = key(triple, node)
            if hop is None:
                continue
            self_loop = triple.head == triple.tail
            walks = end.walks - (0 if self_loop else end.via.get(triple, 0))
            if walks <= 0:
                continue  # every walk here came by this triple: no going back on it
            other = triple.other(node)
            target = grown.setdefault(hop, {})
            if other in target:
                reached = target[other]
                reached.walks += walks
                reached.via[triple] = reached.via.get(triple, 0) + walks
                reached.simple = reached.simple or (end.simple and other not in seen)
            else:
                target[other] = _End(
                    walks, {triple: walks}, (*end.facts, triple), end.simple and other not in seen
                )
    return grown, capped


def _hop_of(triple: Triple, node: str) -> Hop:
    return Hop(triple.relation, triple.head == node)


def relation_paths(
    store: GraphStore,
    topic: str,
    max_hops: int = 3,
    max_frontier: int = 50,
    extend: Callable[[list[RelationPath]], list[RelationPath]] | None = None,
) -> list[RelationPath]:
    """The relation paths of 1 to ``max_hops`` hops from ``topic``, shorter first, each with
    what it reaches (one batch read of at most :data:`READ_LIMIT` triples per node and hop;
    at most ``max_frontier`` nodes of each path are walked on).

    ``extend`` chooses, hop by hop, which of the new paths are walked on (a beam: the paths
    closest to a question, say); all of them by default.

    Parameters
    ----------
    store : GraphStore
        The graph (a compound view steps through unnamed nodes).
    topic : str
        A node of the graph.
    max_hops : int
        The longest path.
    max_frontier : int
        Nodes walked on per path and hop at most.
    extend : callable, optional
        ``paths -> the paths to walk on``, at each hop.

    Returns
    -------
    list of RelationPath
        In the order found: by length, then the graph's canonical order.
    """
    level: dict[tuple[Hop, ...], dict[str, _End]] = {(): {topic: _End(1, {}, (), True)}}
    capped_of: dict[tuple[Hop, ...], bool] = {(): False}
    paths: list[RelationPath] = []
    for _ in range(max_hops):
        frontier = list(
            dict.fromkeys(n for ends in level.values() for n in list(ends)[:max_frontier])
        )
        if not frontier:
            break
        read = store.neighbors_batch(frontier, limit=READ_LIMIT)
        following: dict[tuple[Hop, ...], dict[str, _End]] = {}
        found: list[RelationPath] = []
        for prefix, ends in level.items():
            grown, capped = _step(ends, read, max_frontier, _hop_of)
            for hop, reached in grown.items():
                hops = (*prefix, hop)
                following[hops] = reached
                capped_of[hops] = capped_of[prefix] or capped
                found.append(_path(topic, hops, reached, capped_of[hops]))
        paths.extend(found)
        if extend is not None:
            walked_on = {p.hops for p in extend(found)}
            following = {hops: ends for hops, ends in following.items() if hops in walked_on}
        level = following
    return paths


def _path(topic: str, hops: tuple[Hop, ...], ends: dict[str, _End], capped: bool) -> RelationPath:
    example = next(iter(ends.values())).facts if ends else ()
    return RelationPath(
        topic=topic,
        hops=hops,
        reached={node: end.walks for node, end in ends.items()},
        simple={node for node, end in ends.items() if end.simple},
        example=example,
        capped=capped,
    )


@dataclasses.dataclass
class FollowedPath:
    """A relation path walked on the graph: the nodes it reaches (best supported first), the
    facts along the way (those of walks that reach an end), and whether a cap cut it."""

    topic: str
    hops: tuple[Hop, ...]
    answers: list[str]
    facts: list[Triple]
    capped: bool
    #: For each answer, the facts of one walk that reaches it (the evidence of an answer set).
    answer_facts: dict[str, tuple[Triple, ...]] = dataclasses.field(default_factory=dict)

    def supporting_facts(self, answers: Sequence[str]) -> list[Triple]:
        """The facts of the walks reaching ``answers`` (each fact once, hop by hop), so every
        answer of an answer set has its own chain of facts; :attr:`facts` when none is known."""
        found: dict[Triple, int] = {}
        for answer in answers:
            for depth, triple in enumerate(self.answer_facts.get(answer, ())):
                found.setdefault(triple, depth)
        return sorted(found, key=found.__getitem__) or list(self.facts)

    def label(self, verbalize: Callable[[str], str] = verbalize_relation) -> str:
        """The hops as a person reads them, joined by ``" / "``."""
        return " / ".join(hop.text(verbalize) for hop in self.hops)

    def nodes(self) -> tuple[str, ...]:
        """The nodes of the path's facts, in the order the facts name them."""
        return tuple(dict.fromkeys(n for t in self.facts for n in (t.head, t.tail)))


def follow_path(
    store: GraphStore,
    topic: str,
    hops: Sequence[Hop],
    max_fanout: int = 200,
    max_facts: int = 24,
    exclude: Sequence[str] = (),
) -> FollowedPath:
    """Walk ``hops`` from ``topic`` on the graph, deterministically: one batch read per hop,
    at most ``max_fanout`` nodes walked on per hop.

    The answers are the nodes the last hop reaches (:func:`order_answers`, ``exclude`` left
    out unless nothing else is reached); the facts are those of the walks that reach the best
    supported answers, at most ``max_facts``, hop by hop.

    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([("X", "recording", "X")])
    >>> follow_path(store, "X", [Hop("recording"), Hop("recording")], exclude=["X"]).answers
    ['X']
    """
    ends: dict[str, _End] = {topic: _End(1, {}, (), True)}
    capped = False
    kept: list[dict[str, _End]] = []
    for hop in hops:

        def along(triple: Triple, node: str, hop: Hop = hop) -> Hop | None:
            taken = _hop_of(triple, node)
            if taken == hop or (triple.head == triple.tail and triple.relation == hop.relation):
                return hop
            return None

        frontier = list(ends)[:max_fanout]
        read = store.neighbors_batch(frontier, limit=READ_LIMIT)
        grown, cut = _step(ends, read, max_fanout, along)
        capped = capped or cut
        ends = grown.get(hop, {})
        kept.append(ends)
        if not ends:
            break
    answers = order_answers(
        {n: e.walks for n, e in ends.items()}, {n for n, e in ends.items() if e.simple}, exclude
    )
    facts: dict[Triple, int] = {}  # each fact at the first hop it is taken
    for node in answers:
        for depth, triple in enumerate(ends[node].facts):
            facts.setdefault(triple, depth)
        if len(facts) >= max_facts:
            break
    ordered = sorted(facts, key=facts.__getitem__)[:max_facts]
    walks = {node: ends[node].facts for node in answers}
    return FollowedPath(topic, tuple(hops), answers, ordered, capped, walks)
