"""Path planning: the model chooses the relation path, the graph does the walking.

1. List the relation paths the graph holds around the topic entities, up to ``max_hops``
   (:func:`~kgcore.paths.walk.relation_paths`), each with an example walk and where it leads.
2. Rank them by closeness to the question (sentence embeddings when there is an embedder,
   else shared words) and offer the best ``offered`` to the model: it chooses one by number, or
   ``{none}``, so it cannot invent a relation.
3. Follow the chosen path on the graph (:func:`~kgcore.paths.walk.follow_path`, one batch read
   per hop): the nodes it reaches, ordered as the evidence supports, and the facts along it.

One model call at most (none when a single path is offered; an unusable reply is not asked
again: it counts as no path). The method that plans decides
what the followed path does: answer, or join the facts its reasoning reads.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.llm import ScriptedLLM
>>> from kgcore.llm.protocol import UsageMeter, run_steps
>>> store = InMemoryGraphStore.from_triples([
...     ("Ann", "child", "Bob"), ("Cid", "child", "Bob"), ("Cid", "birthplace", "Aurich")])
>>> plan = run_steps(plan_steps(store, "the birthplace of the parent of Ann's child", ["Ann"],
...     PathSettings(), UsageMeter()), ScriptedLLM(["{1}"]))
>>> sorted(p.label() for p in plan.offered)
['child', 'child / child of', 'child / child of / birthplace']
>>> plan.chosen.label(), plan.followed.answers
('child / child of / birthplace', ['Aurich'])
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kgcore.graph.store import GraphStore
from kgcore.llm.parsing import parse_choices
from kgcore.llm.protocol import LLMReply, LLMRequest, Steps, UsageMeter
from kgcore.paths.question_chain import chain_phrases, chain_readings, question_ends
from kgcore.paths.settings import PathSettings
from kgcore.paths.walk import FollowedPath, RelationPath, follow_path, relation_paths
from kgcore.text.answer_forms import normalize_answer
from kgcore.text.relations import verbalize_relation
from kgcore.types import Triple
from kgcore.validation import join_answers

#: Reply characters parsed at most (a reply is untrusted).
MAX_PLAN_REPLY_CHARS = 2000
#: Reached nodes named per offered path.
SHOWN_ENDS = 3

PLAN_SYSTEM = (
    "You answer questions from a knowledge graph. You are shown relation paths that start at "
    "the question's entity, each with an example and the names it leads to. Choose the ONE "
    "path whose relations match what the question asks, step by step."
)

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


@dataclasses.dataclass
class PathPlan:
    """What planning did: the offered paths, the chosen one (``None`` when the model chose
    none or gave no usable reply) and the path followed on the graph."""

    offered: list[RelationPath]
    chosen: RelationPath | None = None
    followed: FollowedPath | None = None

    def record(self) -> dict[str, Any]:
        """A trace entry: the offered paths, the chosen one, the answers and facts."""
        entry: dict[str, Any] = {
            "purpose": "path",
            "offered": [p.label() for p in self.offered],
            "chosen": self.chosen.label() if self.chosen else None,
        }
        if self.followed is not None:
            entry["answers"] = self.followed.answers[:50]
            entry["facts"] = [list(t) for t in self.followed.facts]
            entry["capped"] = self.followed.capped
        return entry


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


def coverage(named: set[str], held: set[str]) -> float:
    """How well a path's relations ``held`` match those the question ``named``: the F1 of the
    two sets (a path that leaves a named relation out, or walks one nobody asked for, loses),
    0 when the question names none.

    >>> coverage({"directed by", "written by"}, {"directed by", "written by"})
    1.0
    >>> coverage({"directed by", "written by"}, {"directed by", "starred actors"})
    0.5
    """
    shared = len(named & held)
    return 2 * shared / (len(named) + len(held)) if shared else 0.0


def _word_similarity(text: str, others: Sequence[str]) -> list[float]:
    asked = _words(text)
    return [_share(other, asked) for other in others]


def path_scorer(
    embed: Callable[[list[str]], Any] | None = None,
    coverage_weight: float = PathSettings.coverage,
    coverage_relations: int = PathSettings.coverage_relations,
    hop_cost: float = PathSettings.hop_cost,
    named_hop_cost: float = PathSettings.named_hop_cost,
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
    - otherwise (with ``embed``), plus ``coverage_weight`` times the :func:`coverage` of the
      relations the question names (:func:`mentioned_relations`) by the path's relations,
      when the paths hold at most ``coverage_relations`` distinct relation names
      (``PathSettings.coverage`` and ``coverage_relations``, ``docs/research/
      path_planning.md``);
    - :data:`REVERSE_HOP_COST` less per hop read backwards, and (a question not read as a
      chain) ``hop_cost`` less per hop past the first (``PathSettings.hop_cost``), and, with
      ``embed`` and at most ``coverage_relations`` relation names in the paths,
      ``named_hop_cost`` less per such hop whose relation the question does not name
      (:func:`mentioned_relations`; ``PathSettings.named_hop_cost``).

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
        if embed is not None and not phrases and (coverage_weight or named_hop_cost):
            # A relation is named whichever way a hop reads it.
            hop_names = [[verbalize_relation(hop.relation) for hop in p.hops] for p in paths]
            relations = sorted({name for names in hop_names for name in names})
            if len(relations) <= coverage_relations:
                asked = mentioned_relations(question, topic, relations, embed)
                for i, names in enumerate(hop_names):
                    scores[i] += coverage_weight * coverage(asked, set(names))
                    unnamed = sum(name not in asked for name in names[1:])
                    scores[i] -= named_hop_cost * unnamed
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
                scores[i] -= hop_cost * (len(path.hops) - 1)
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


def _sentence(triple: Triple) -> str:
    return f"{triple.head} {verbalize_relation(triple.relation)} {triple.tail}."


def path_option(path: RelationPath, exclude: Sequence[str] = ()) -> str:
    """One offered path as the model reads it: its relations, an example walk and where it
    leads.

    >>> from kgcore.paths.walk import Hop
    >>> path = RelationPath("Ann", (Hop("child"),), {"Bob": 1}, {"Bob"},
    ...                     (Triple("Ann", "child", "Bob"),))
    >>> path_option(path)
    'child. Example: Ann child Bob. Leads to: Bob.'
    """
    ends = path.answers(exclude)
    shown = "; ".join(ends[:SHOWN_ENDS])
    more = f" (and {len(ends) - SHOWN_ENDS} more)" if len(ends) > SHOWN_ENDS else ""
    example = " ".join(_sentence(t) for t in path.example)
    return f"{path.label()}. Example: {example} Leads to: {shown}{more}."


def plan_request(
    question: str, paths: Sequence[RelationPath], exclude: Sequence[str] = ()
) -> LLMRequest:
    """The planning request: the offered paths, numbered, each from its topic entity.

    >>> from kgcore.paths.walk import Hop
    >>> path = RelationPath("Ann", (Hop("child"),), {"Bob": 1}, {"Bob"},
    ...                     (Triple("Ann", "child", "Bob"),))
    >>> print(plan_request("who is Ann's child", [path]).messages[-1].content[:81])
    Question: who is Ann's child
    Paths in the graph:
    1. From Ann: child. Example: Ann
    """
    listed = "\n".join(
        f"{i}. From {p.topic}: {path_option(p, exclude)}" for i, p in enumerate(paths, start=1)
    )
    prompt = (
        f"Question: {question}\nPaths in the graph:\n{listed}\n"
        "Which ONE path leads to the answer of the question? Reply with its number in braces, "
        "for example {1}. If none fits, reply {none}."
    )
    return LLMRequest.from_prompt(
        prompt, purpose="path", system=PLAN_SYSTEM, temperature=0.0, max_tokens=48
    )


def read_plan(text: str, n_paths: int) -> list[int] | None:
    """The chosen path (0-based) of a reply, ``[]`` for none, ``None`` when unusable; total.

    >>> read_plan("{3}", 4), read_plan("{none}", 4), read_plan("hmm", 4)
    ([2], [], None)
    """
    return parse_choices(str(text)[:MAX_PLAN_REPLY_CHARS], n_paths, 1, "numbers")


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


def _follow(
    store: GraphStore, path: RelationPath, settings: PathSettings, topic: Sequence[str]
) -> FollowedPath:
    """``path`` followed on the graph with the settings' caps, the topic entities left out of
    its answers unless it leads back to them alone."""
    return follow_path(
        store,
        path.topic,
        path.hops,
        max_fanout=settings.max_fanout,
        max_facts=settings.max_facts,
        exclude=topic,
    )


def read_paths(
    store: GraphStore,
    question: str,
    topic: Sequence[str],
    settings: PathSettings,
    scorer: PathScorer | None = None,
) -> tuple[list[FollowedPath], bool]:
    """The ``settings.offered`` relation paths closest to ``question`` that reach something
    (distinct, best first), each followed on the graph: what a reasoning step reads, no model
    call. A question asked as a chain of relation phrases ("the nation of the spouse of X's
    dad", :func:`~kgcore.paths.question_chain.chain_readings`) whose best path has a reading
    of its length is offered that path alone: its hops were matched phrase by phrase, and a
    small model reading several chains side by side loses its place. Returns the followed
    paths and whether the question was read as such a chain."""
    paths = list_paths(store, question, topic, settings, scorer)
    ranked = distinct_paths([paths[i] for i in rank_paths(question, paths, scorer, topic)])
    offered = settings.offered
    chained = bool(ranked) and bool(chain_readings(question, topic, len(ranked[0].hops)))
    if chained:
        offered = 1  # a chain question: the path aligned hop by hop with its phrases alone
    followed = (_follow(store, path, settings, topic) for path in ranked[:offered])
    return [f for f in followed if f.answers], chained


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
    """The relation paths around the ``topic`` entities that reach a node: at each hop, the
    ``settings.beam`` paths closest to ``question`` are walked on (:func:`rank_paths`)."""

    def closest(paths: list[RelationPath]) -> list[RelationPath]:
        if len(paths) <= settings.beam:
            return paths
        return [paths[i] for i in rank_paths(question, paths, scorer, topic)[: settings.beam]]

    listed = (
        relation_paths(store, t, settings.max_hops, settings.max_frontier, extend=closest)
        for t in topic
    )
    return [p for paths in listed for p in paths if p.reached]


def plan_steps(
    store: GraphStore,
    question: str,
    topic: Sequence[str],
    settings: PathSettings,
    usage: UsageMeter,
    scorer: PathScorer | None = None,
    record: Callable[[LLMRequest, LLMReply, list[int] | None], None] | None = None,
) -> Steps[PathPlan | None]:
    """Plan a relation path from the ``topic`` entities, and follow it (a step generator).

    Parameters
    ----------
    store : GraphStore
        The graph (through a compound view to step through unnamed nodes).
    question : str
        The question.
    topic : sequence of str
        The linked topic entities (graph nodes).
    settings : PathSettings
        Hops, paths offered, caps.
    usage : UsageMeter
        Counts the call.
    scorer : PathScorer, optional
        Ranks the paths (:func:`path_scorer`); by shared words without one.
    record : callable, optional
        ``(request, reply, picked)`` for the caller's trace.

    Returns
    -------
    PathPlan or None
        ``None`` when no path leaves the topic entities.
    """
    paths = list_paths(store, question, topic, settings, scorer)
    if not paths:
        return None
    offered = distinct_paths([paths[i] for i in rank_paths(question, paths, scorer, topic)])
    offered = offered[: settings.offered]
    if len(offered) == 1:
        picked: list[int] | None = [0]
    else:
        # Asked once: an unusable reply means no path, and the method goes on.
        request = plan_request(question, offered, topic)
        reply = yield request
        usage.add(reply)
        picked = read_plan(reply.text, len(offered))
        if picked is None:
            usage.unparsed += 1
        if record is not None:
            record(request, reply, picked)
    if not picked:
        return PathPlan(offered)
    chosen = offered[picked[0]]
    followed = _follow(store, chosen, settings, topic)
    return PathPlan(offered, chosen, followed)
