"""Think-on-Graph (ToG, Sun et al. 2024), the node-level n-d 1-w baseline.

At every depth ToG widens ``W`` kept paths by one hop, with the LLM as the judge:

1. *Relation search and pruning*: the relations around each frontier entity are listed and the
   LLM keeps up to ``W`` of them with scores that sum to one (an entity with one relation keeps
   it without a call).
2. *Entity search and scoring*: the entities behind each kept relation are listed (a
   neighbourhood of ``entity_sample_threshold`` or more is cut to ``entity_sample_size`` by a
   seeded draw) and the LLM scores them; a lone candidate needs no call. A candidate's score is
   its relation's score times its own.
3. The ``W`` best candidates over the whole frontier become the new paths.
4. *Reasoning*: the LLM reads every kept triple and says whether they suffice, by answering
   from them or replying ``{Unknown}`` (``{No}`` and the paper's ``Yes {answer}``/``No`` are
   read too); an answer is final, otherwise ToG goes one hop deeper, up to ``max_depth``.

When exploration dies out or ``max_depth`` passes without a sufficient set, ToG answers by CoT.
An unparseable reply is asked again once with a format reminder; a relation list that still
cannot be read is dropped (as in ToG's code), entity scores fall back to uniform and an unread
sufficiency check counts as "no".

:meth:`ToG.steps` is this algorithm, one method per phase: entity linking
(:meth:`ToG._link`), relation search and pruning (:meth:`ToG._search_relations`,
:meth:`ToG._prune_relations`), entity search and scoring (:meth:`ToG._score_entities`), path
selection (:meth:`ToG._select_paths`), reasoning (:meth:`ToG._reason`) and the CoT fallback
(:meth:`ToG._fallback`).

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.llm import ScriptedLLM
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
>>> tog = ToG(store)
>>> llm = ScriptedLLM(["Yes {Joseph L. Mankiewicz}"])
>>> result = tog.run("who directed [Cleopatra]", llm)
>>> result.answer, result.llm_calls, result.depth
('Joseph L. Mankiewicz', 1, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

import numpy as np

from kgcore.exceptions import InvalidSettingError
from kgcore.graph.compound import compound_view
from kgcore.graph.store import GraphStore
from kgcore.llm.protocol import Steps
from kgcore.methods.base import StepMethod
from kgcore.methods.kernel import (
    MAX_RECORDED_PRUNED,
    UNKNOWN,
    Linked,
    answer_steps,
    ask_parsed,
    check_answer,
    link_steps,
    topic_names,
    triple_text,
)
from kgcore.methods.result import MethodResult
from kgcore.methods.tog.config import ToGConfig
from kgcore.methods.tog.parsing import parse_scores, parse_sufficiency
from kgcore.methods.tog.prompts import (
    ENTITY_REMINDER,
    REASON_REMINDER,
    RELATION_REMINDER,
    SCORE_REMINDER,
)
from kgcore.methods.tog.requests import ToGRequests
from kgcore.methods.tog.search_state import Candidate, Relation, SearchState
from kgcore.types import Triple


class ToG(StepMethod[MethodResult]):
    """The ToG engine (n-d 1-w), written once as a step generator.

    Parameters
    ----------
    store : GraphStore
        The knowledge graph, seen through a
        :class:`~kgcore.graph.compound.CompoundNodeView`: unnamed compound nodes
        (``m.0w4dx1v``) are stepped through, never shown (give a view of your own for
        another pattern, or ``CompoundNodeView(store, unnamed=None)`` for none).
    config : ToGConfig, optional
        Every setting (:class:`~kgcore.methods.tog.config.ToGConfig`'s defaults when left
        out).
    **overrides :
        :class:`~kgcore.methods.tog.config.ToGConfig` fields that override ``config``'s
        (``ToG(store, width=2)``).

    Example
    -------
    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([("a", "r", "b")])
    >>> ToG(store).width, ToG(store, ToGConfig(width=2), max_depth=1).config.max_depth
    (3, 1)
    """

    name = "tog"

    def __init__(self, store: GraphStore, config: ToGConfig | None = None, **overrides: Any):
        self.store = compound_view(store)
        if config is not None and not isinstance(config, ToGConfig):
            raise InvalidSettingError(f"config must be a ToGConfig, got {type(config).__name__}")
        self.config = (config or ToGConfig()).with_overrides(**overrides)
        self.requests = ToGRequests(self.config)

    @property
    def width(self) -> int:
        """``W``: relations kept per entity and paths kept per depth."""
        return self.config.width

    @property
    def max_depth(self) -> int:
        """``D_max``: hops explored before the CoT fallback."""
        return self.config.max_depth

    # -- the method ----------------------------------------------------------------------
    def steps(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[MethodResult]:
        """ToG as a step generator (see :mod:`kgcore.llm.protocol`).

        ``topic_entities`` are linked to graph nodes; without them the question's bracketed
        names are used, and without those the LLM extracts the entities (one call).
        Raises :class:`~kgcore.exceptions.EntityNotFoundError` when none can be linked.
        """
        search = SearchState(question, self.meter(), np.random.default_rng(self.config.seed))
        frontier = yield from self._link(search, topic_entities)
        answer: str | None = None
        while frontier and search.depth < self.max_depth:
            search.depth += 1
            candidates = yield from self._expand(search, frontier)
            chosen = self._select_paths(search, candidates)
            if not chosen:
                break
            frontier = self._extend_paths(search, chosen)
            answer = yield from self._reason(search)
            if answer:
                break
        fell_back = answer is None
        if answer is None:
            answer = yield from self._fallback(search)
        return self._result(search, answer, fell_back)

    # -- the phases ----------------------------------------------------------------------
    def _link(self, search: SearchState, topic_entities: Sequence[str] | None) -> Steps[list[str]]:
        """Entity linking: the topic entities, the first frontier.

        Parameters
        ----------
        search : SearchState
            The run; its ``start``, ``topics`` and ``visited`` are set here.
        topic_entities : sequence of str, optional
            The caller's topic entities (else the bracketed names, else the LLM's).

        Returns
        -------
        list of str
            The graph nodes linked, in order.
        """
        linked: Linked = yield from search.meter.graph_steps(
            link_steps(
                self.store, search.question, topic_entities, search.usage, reminder=ENTITY_REMINDER
            )
        )
        search.start = list(linked.nodes)
        # A topic entity is not an answer: explore on (ToG named its topic entity).
        search.topics = topic_names(search.question, [*linked.names, *search.start])
        search.visited = set(search.start)
        return list(search.start)

    def _expand(self, search: SearchState, frontier: list[str]) -> Steps[list[Candidate]]:
        """One hop around the whole frontier: relations pruned, then entities scored.

        Parameters
        ----------
        search : SearchState
            The run.
        frontier : list of str
            The entities the kept paths end on.

        Returns
        -------
        list of Candidate
            Every scored candidate, in discovery order (frontier entity, relation, entity).
        """
        with search.meter.graph():
            batch = self.store.neighbors_batch(frontier)
        candidates: list[Candidate] = []
        for entity in frontier:
            found = yield from self._expand_entity(search, entity, batch.get(entity, ()))
            candidates.extend(found)
        return candidates

    def _expand_entity(
        self, search: SearchState, entity: str, triples: Iterable[Triple]
    ) -> Steps[list[Candidate]]:
        """The candidates one frontier entity offers: its relations searched and pruned, then
        the entities behind each kept relation scored.

        Parameters
        ----------
        search : SearchState
            The run.
        entity : str
            A frontier entity.
        triples : iterable of Triple
            The entity's triples.

        Returns
        -------
        list of Candidate
            The entity's candidates; none when it has no new relation or its relation choice
            cannot be read.
        """
        by_relation = self._search_relations(entity, triples, search.visited)
        relations = sorted(by_relation)[: min(self.config.max_relations, 26)]
        if not relations:
            return []
        labels = self.requests.relation_labels(relations)
        rel_scores = yield from self._prune_relations(search, entity, labels)
        if rel_scores is None:
            return []  # an unreadable relation choice drops the entity
        candidates: list[Candidate] = []
        for index, rel_score in rel_scores.items():
            scored = yield from self._score_entities(
                search, entity, labels[index], by_relation[relations[index]], rel_score
            )
            candidates.extend(scored)
        return candidates

    @staticmethod
    def _search_relations(
        entity: str, triples: Iterable[Triple], visited: set[str]
    ) -> dict[Relation, list[Triple]]:
        """Relation search: the entity's triples to unvisited entities, by relation.

        Parameters
        ----------
        entity : str
            A frontier entity.
        triples : iterable of Triple
            The entity's triples.
        visited : set of str
            Entities already on a path (not offered again).

        Returns
        -------
        dict
            ``(relation, outgoing) -> triples``, in the graph's order.
        """
        by_relation: dict[Relation, list[Triple]] = {}
        for triple in triples:
            if triple.other(entity) in visited:
                continue
            key = (triple.relation, triple.head == entity)
            by_relation.setdefault(key, []).append(triple)
        return by_relation

    def _prune_relations(
        self, search: SearchState, entity: str, labels: list[str]
    ) -> Steps[dict[int, float] | None]:
        """Relation pruning: the LLM keeps up to ``W`` relations, with scores.

        Parameters
        ----------
        search : SearchState
            The run.
        entity : str
            The frontier entity.
        labels : list of str
            Its relations, as shown.

        Returns
        -------
        dict of int to float or None
            Relation index -> score; a lone relation is kept without a call; ``None`` when
            the reply and its retry cannot be read.
        """
        if len(labels) == 1:
            return {0: 1.0}
        search.stats["relation_calls"] += 1
        return (
            yield from ask_parsed(
                self.requests.relations(search.question, entity, labels),
                partial(parse_scores, n_options=len(labels), max_choices=self.width),
                RELATION_REMINDER,
                search.usage,
                record=search.trace.recorder(depth=search.depth, entity=entity, offered=labels),
            )
        )

    def _score_entities(
        self,
        search: SearchState,
        entity: str,
        relation: str,
        triples: list[Triple],
        rel_score: float,
    ) -> Steps[list[Candidate]]:
        """Entity search and scoring: the entities behind a kept relation, scored by the LLM.

        A neighbourhood of ``entity_sample_threshold`` or more is cut to
        ``entity_sample_size`` by the run's seeded draw; a lone entity needs no call, and
        scores that cannot be read are uniform.

        Parameters
        ----------
        search : SearchState
            The run.
        entity : str
            The frontier entity.
        relation : str
            The kept relation, as shown.
        triples : list of Triple
            The relation's triples from ``entity``.
        rel_score : float
            The relation's score.

        Returns
        -------
        list of Candidate
            One candidate per scored entity, scored by relation score times entity score.
        """
        if len(triples) >= self.config.entity_sample_threshold:
            chosen = search.rng.choice(len(triples), self.config.entity_sample_size, replace=False)
            triples = [triples[i] for i in sorted(chosen)]
        others = [t.other(entity) for t in triples]
        if len(triples) == 1:
            ent_scores: dict[int, float] = {0: 1.0}
        else:
            search.stats["entity_calls"] += 1
            parsed = yield from ask_parsed(
                self.requests.entities(search.question, entity, relation, others),
                partial(parse_scores, n_options=len(others), max_choices=len(others)),
                SCORE_REMINDER,
                search.usage,
                record=search.trace.recorder(depth=search.depth, relation=relation, offered=others),
            )
            if parsed is None:  # unreadable scores: uniform
                parsed = {i: 1.0 / len(others) for i in range(len(others))}
            ent_scores = parsed
        return [
            Candidate(triples[i], others[i], rel_score * ent_score)
            for i, ent_score in ent_scores.items()
        ]

    def _select_paths(self, search: SearchState, candidates: list[Candidate]) -> list[Candidate]:
        """Path selection: the ``W`` best candidates over the whole frontier.

        What was kept and dropped is recorded in ``search.explored``.

        Parameters
        ----------
        search : SearchState
            The run.
        candidates : list of Candidate
            This depth's candidates, in discovery order.

        Returns
        -------
        list of Candidate
            At most ``W`` candidates with a positive score, best first.
        """
        # Stable sort: equal scores keep discovery order, so runs repeat exactly.
        best = sorted(candidates, key=lambda c: -c.score)
        chosen = [c for c in best if c.score > 0][: self.width]
        kept_ids = {id(c) for c in chosen}
        search.explored.append(
            {
                "depth": search.depth,
                "kept": [list(c.triple) for c in chosen],
                "pruned": [list(c.triple) for c in best if id(c) not in kept_ids][
                    :MAX_RECORDED_PRUNED
                ],
            }
        )
        return chosen

    @staticmethod
    def _extend_paths(search: SearchState, chosen: list[Candidate]) -> list[str]:
        """Extend the paths by the chosen triples.

        Parameters
        ----------
        search : SearchState
            The run; the chosen triples join ``kept``, their entities ``visited``.
        chosen : list of Candidate
            The selected candidates.

        Returns
        -------
        list of str
            The new frontier: the chosen entities, once each, in order.
        """
        search.kept.extend(c.triple for c in chosen)
        frontier = list(dict.fromkeys(c.entity for c in chosen))
        search.visited.update(frontier)
        return frontier

    def _reason(self, search: SearchState) -> Steps[str | None]:
        """Reasoning: the LLM reads every kept triple and answers, or says they do not suffice.

        Parameters
        ----------
        search : SearchState
            The run.

        Returns
        -------
        str or None
            The answer, written as the nodes of the kept triples it names; ``None`` when the
            triples do not suffice, the reply cannot be read, or it names a topic entity or
            no node of the kept triples.
        """
        search.stats["reason_calls"] += 1
        # The answer is a node of the kept triples (the model shortens names), or none.
        nodes = list(dict.fromkeys(name for h, _, t in search.kept for name in (h, t)))
        verdict = yield from ask_parsed(
            self.requests.reason(search.question, search.kept),
            lambda text: parse_sufficiency(text, nodes),
            REASON_REMINDER,
            search.usage,
            record=search.trace.recorder(depth=search.depth, facts=len(search.kept)),
        )
        if not (verdict and verdict[0]):
            return None
        return check_answer(verdict[1], search.topics, nodes=nodes) or None

    def _fallback(self, search: SearchState) -> Steps[str]:
        """The CoT fallback, when exploration dies out or ``max_depth`` passes unanswered.

        Parameters
        ----------
        search : SearchState
            The run.

        Returns
        -------
        str
            The CoT answer (``Unknown`` when it gives none).
        """
        return (
            yield from answer_steps(
                search.question,
                search.usage,
                self.config.answer_max_tokens,
                record=search.trace.recorder(),
                topics=search.topics,
            )
        )

    def _result(self, search: SearchState, answer: str, fell_back: bool) -> MethodResult:
        """The run's result: the answer, the kept triples as context, the run's accounting.

        Parameters
        ----------
        search : SearchState
            The run.
        answer : str
            The final answer.
        fell_back : bool
            Whether the CoT fallback gave it.

        Returns
        -------
        MethodResult
            With the call counts, topic entities, what each depth explored and every LLM step
            in ``extra``.
        """
        result = MethodResult(
            question=search.question,
            answer=answer or UNKNOWN,
            method=self.name,
            depth=search.depth,
            fell_back=fell_back,
            grounded=not fell_back,  # the CoT fallback's answer is the model's own (sane)
            context="\n".join(triple_text(t, self.config.verbalizer) for t in search.kept),
        )
        result.extra.update(search.stats)
        result.extra.update(
            topic_entities=list(search.start), explored=search.explored, steps=search.trace.steps
        )
        return search.meter.finish(result)
