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

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from kgcore.exceptions import InvalidSettingError
from kgcore.graph.compound import compound_view
from kgcore.graph.store import GraphStore
from kgcore.llm.parsing import parse_choices
from kgcore.llm.protocol import LLMRequest, Steps
from kgcore.methods.base import StepMethod
from kgcore.methods.kernel import (
    GRAPH_SYSTEM,
    MAX_RECORDED_PRUNED,
    UNKNOWN,
    Linked,
    StepTrace,
    answer_steps,
    ask_parsed,
    check_answer,
    check_template,
    check_verbalizer,
    link_steps,
    options_text,
    parse_graph_answer,
    topic_names,
    triple_text,
)
from kgcore.methods.result import MethodResult
from kgcore.settings import Settings, checked_settings
from kgcore.text.relations import Verbalizer, distinct_phrases, verbalize_relation
from kgcore.types import Triple
from kgcore.validation import TOG_LIMITS

SYSTEM = GRAPH_SYSTEM
#: ToG's format reminder after an entity list that could not be read.
ENTITY_REMINDER = 'Reply with a JSON list of entity names, e.g. ["Ada Lovelace"].'
REASON_SYSTEM = (
    "You answer questions from knowledge-graph triplets. The answer is never the entity in "
    "brackets."
)
_SCORE = re.compile(r"\b([A-Z])\b\s*[:=(\-]\s*(?:score\s*[:=]?\s*)?(\d*\.?\d+)", re.IGNORECASE)


def parse_scores(text: str, n_options: int, max_choices: int) -> dict[int, float] | None:
    """Option index -> score from a reply like ``{A: 0.6, C: 0.4}``.

    Falls back to letters without scores (equal shares). ``{}`` means none fits; ``None``
    means nothing usable was found.

    Example
    -------
    >>> parse_scores("{A: 0.6, C: 0.4}", n_options=3, max_choices=3)
    {0: 0.6, 2: 0.4}
    >>> parse_scores("B", n_options=3, max_choices=3)
    {1: 1.0}
    """
    scores: dict[int, float] = {}
    for letter, value in _SCORE.findall(text):
        index = ord(letter.upper()) - ord("A")
        if 0 <= index < n_options and index not in scores:
            try:
                scores[index] = float(value)
            except ValueError:
                continue
    if scores:
        best = sorted(scores.items(), key=lambda kv: -kv[1])[:max_choices]
        return {i: s for i, s in best if s > 0} or {i: 1.0 / len(best) for i, _ in best}
    picked = parse_choices(text, n_options=n_options, max_choices=max_choices)
    if picked is None:
        return None
    return {i: 1.0 / len(picked) for i in picked}


def parse_sufficiency(text: str) -> tuple[bool, str | None] | None:
    """``(True, answer)`` for "Yes {answer}", ``(False, None)`` for "No", ``None`` if unclear.

    Example
    -------
    >>> parse_sufficiency("Yes. {Cobra}")
    (True, 'Cobra')
    >>> parse_sufficiency("{No}")
    (False, None)
    """
    body = text.strip()
    lowered = body.lower().lstrip("{[(\"'* ")
    if re.match(r"no\b", lowered):
        return False, None
    cleaned = re.sub(r"\{\s*(yes|no)\s*\}", " ", body, flags=re.IGNORECASE)
    if re.match(r"yes\b", lowered):
        rest = re.sub(r"^[\s{\[(\"'*]*yes\b[\s.,:!}\])\"'*-]*", "", cleaned, flags=re.IGNORECASE)
        answer = parse_graph_answer(rest) if rest.strip() else None
        return (True, answer) if answer else None
    if "{" in cleaned:
        answer = parse_graph_answer(cleaned)
        return (True, answer) if answer else (False, None)
    return None


#: The relation-pruning prompt (``str.format`` fields: question, entity, options, width).
RELATION_PROMPT = (
    "Question: {question}\nEntity: {entity}\nRelations:\n{options}\n"
    "Pick up to {width} relations that help answer the question and score them "
    "(scores sum to 1). Reply like {{A: 0.7, B: 0.3}}."
)
#: The entity-scoring prompt (fields: question, entity, relation, options).
ENTITY_PROMPT = (
    "Question: {question}\nEntity: {entity}\nRelation: {relation}\n"
    "Candidates:\n{options}\n"
    "Score how much each candidate helps answer the question (scores sum to 1). "
    "Reply like {{A: 0.5, B: 0.5}}."
)
# Triplets first, then the question, and the answer itself as the "yes": on MetaQA dev
# questions the local 1.5B model answered a bare "No" (question first) or a bare "Yes"
# (no answer) to the paper's yes/no wording, even with the answer in the triplets.
# "Not enough" is asked as {Unknown}, as FastToG asks it: replaying the final triplets
# of 8 dev 2-hop questions that held a gold answer, the model replied {No} to 6 when
# offered {No}, and named a gold answer for 4 (was 2) when offered {Unknown}. On dev
# 2-hop questions 11-20 (outside the report's slice) whole ToG runs went from 5/10
# hit@1, 5 CoT fallbacks and 74 LLM calls to 6/10, 1 fallback and 44 calls.
#: The reasoning prompt (fields: triples, question).
REASON_PROMPT = (
    "Knowledge triplets:\n{triples}\nQuestion: {question}\n"
    "Reply with the answer names from the triplets in braces. If the triplets lack "
    "them, reply {{Unknown}}."
)
#: Each template's fields, by the config field that holds it.
TEMPLATE_FIELDS: dict[str, frozenset[str]] = {
    "relation_prompt": frozenset({"question", "entity", "options", "width"}),
    "entity_prompt": frozenset({"question", "entity", "relation", "options"}),
    "reason_prompt": frozenset({"triples", "question"}),
}


@checked_settings("ToG", limits=TOG_LIMITS)
@dataclass(frozen=True)
class ToGConfig(Settings):
    """Every ToG setting, checked when made.

    Parameters
    ----------
    width : int
        ``W``: relations kept per entity and paths kept per depth.
    max_depth : int
        ``D_max``: hops explored before the CoT fallback.
    entity_sample_threshold : int
        A relation with at least this many tail entities is sampled down...
    entity_sample_size : int
        ...to this many, by a seeded draw.
    max_relations : int
        At most this many relations are listed per entity (canonical order; 26 at most are
        shown).
    seed : int
        Seeds the entity sampling; the same seed gives the same run.
    max_tokens : int
        Cap on the tokens of each pruning, scoring and reasoning reply.
    answer_max_tokens : int
        Cap on the CoT fallback's reply.
    relation_prompt, entity_prompt, reason_prompt : str
        ``str.format`` templates of the three steps (:data:`RELATION_PROMPT`,
        :data:`ENTITY_PROMPT`, :data:`REASON_PROMPT`); a template must keep their fields.
    verbalizer : callable or {"readable", "raw"}
        How relations are written in every prompt
        (:func:`~kgcore.text.relations.verbalize_relation`: ``people.person.place_of_birth``
        as "place of birth"; ``"raw"`` shows them as stored; or a
        :class:`~kgcore.text.relations.RelationVerbalizer` with names of your own).

    Example
    -------
    >>> ToGConfig(width=2).width
    2
    >>> ToGConfig(width=0)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: ToG setting width=0 is out of range: ...
    """

    width: int = 3
    max_depth: int = 3
    entity_sample_threshold: int = 20
    entity_sample_size: int = 5
    max_relations: int = 26
    seed: int = 0
    max_tokens: int = 48
    answer_max_tokens: int = 160
    relation_prompt: str = field(default=RELATION_PROMPT, repr=False)
    entity_prompt: str = field(default=ENTITY_PROMPT, repr=False)
    reason_prompt: str = field(default=REASON_PROMPT, repr=False)
    verbalizer: Verbalizer = field(default=verbalize_relation, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "verbalizer", check_verbalizer("ToG", self.verbalizer))
        if self.entity_sample_size > self.entity_sample_threshold:
            raise InvalidSettingError(
                "ToG needs entity_sample_size <= entity_sample_threshold, got "
                f"{self.entity_sample_size} > {self.entity_sample_threshold}"
            )
        for name, fields in TEMPLATE_FIELDS.items():
            check_template("ToG", name, getattr(self, name), fields)


@dataclass(frozen=True)
class _Candidate:
    triple: Triple
    entity: str
    score: float


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
        Every setting (:class:`ToGConfig`'s defaults when left out).
    **overrides :
        :class:`ToGConfig` fields that override ``config``'s (``ToG(store, width=2)``).

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

    @property
    def width(self) -> int:
        """``W``: relations kept per entity and paths kept per depth."""
        return self.config.width

    @property
    def max_depth(self) -> int:
        """``D_max``: hops explored before the CoT fallback."""
        return self.config.max_depth

    # -- prompts -----------------------------------------------------------------------
    def _relation_labels(self, relations: Sequence[tuple[str, bool]]) -> list[str]:
        """The options of a relation choice: each ``(relation, outgoing)`` verbalised, two
        relations that read the same told apart (:func:`distinct_phrases`).

        >>> from kgcore.graph import InMemoryGraphStore
        >>> ToG(InMemoryGraphStore())._relation_labels(
        ...     [("film.film.country", True), ("location.location.country", False)])
        ['film country', 'location country (reverse)']
        """
        names = list(dict.fromkeys(r for r, _ in relations))
        texts = dict(zip(names, distinct_phrases(names, self.config.verbalizer), strict=True))
        return [texts[r] if out else f"{texts[r]} (reverse)" for r, out in relations]

    def _relation_request(self, question: str, entity: str, relations: list[str]) -> LLMRequest:
        prompt = self.config.relation_prompt.format(
            question=question, entity=entity, options=options_text(relations), width=self.width
        )
        return LLMRequest.from_prompt(
            prompt, purpose="tog_relations", system=SYSTEM, max_tokens=self.config.max_tokens
        )

    def _entity_request(
        self, question: str, entity: str, relation: str, names: list[str]
    ) -> LLMRequest:
        prompt = self.config.entity_prompt.format(
            question=question, entity=entity, relation=relation, options=options_text(names)
        )
        return LLMRequest.from_prompt(
            prompt,
            purpose="tog_entities",
            system=SYSTEM,
            max_tokens=self.config.max_tokens + 4 * len(names),
        )

    def _reason_request(self, question: str, triples: list[Triple]) -> LLMRequest:
        lines = "\n".join(triple_text(t, self.config.verbalizer) for t in triples)
        return LLMRequest.from_prompt(
            self.config.reason_prompt.format(triples=lines, question=question),
            purpose="tog_reason",
            system=REASON_SYSTEM,
            max_tokens=self.config.max_tokens,
        )

    # -- the method ----------------------------------------------------------------------
    def steps(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[MethodResult]:
        """ToG as a step generator (see :mod:`kgcore.llm.protocol`).

        ``topic_entities`` are linked to graph nodes; without them the question's bracketed
        names are used, and without those the LLM extracts the entities (one call).
        Raises :class:`~kgcore.exceptions.EntityNotFoundError` when none can be linked.
        """
        cfg = self.config
        meter = self.meter()
        usage = meter.usage
        rng = np.random.default_rng(cfg.seed)
        linked: Linked = yield from meter.graph_steps(
            link_steps(self.store, question, topic_entities, usage, reminder=ENTITY_REMINDER)
        )
        names = linked.names
        frontier = list(linked.nodes)
        frontier_start = list(frontier)

        kept: list[Triple] = []
        explored: list[dict[str, object]] = []  # what each depth kept and dropped, for pictures
        topic = list(frontier)
        visited = set(frontier)
        depth = 0
        answer: str | None = None
        stats = {"relation_calls": 0, "entity_calls": 0, "reason_calls": 0}
        trace = StepTrace()  # every LLM step: what was offered, the raw reply, what was read
        while frontier and depth < self.max_depth:
            depth += 1
            candidates: list[_Candidate] = []
            with meter.graph():
                batch = self.store.neighbors_batch(frontier)
            for entity in frontier:
                by_relation: dict[tuple[str, bool], list[Triple]] = {}
                for triple in batch.get(entity, ()):
                    if triple.other(entity) in visited:
                        continue
                    key = (triple.relation, triple.head == entity)
                    by_relation.setdefault(key, []).append(triple)
                relations = sorted(by_relation)[: min(self.config.max_relations, 26)]
                if not relations:
                    continue
                labels = self._relation_labels(relations)
                if len(relations) == 1:
                    rel_scores: dict[int, float] = {0: 1.0}
                else:
                    stats["relation_calls"] += 1
                    parsed = yield from ask_parsed(
                        self._relation_request(question, entity, labels),
                        partial(parse_scores, n_options=len(labels), max_choices=self.width),
                        "Reply only with letters and scores, e.g. {A: 0.7, B: 0.3}.",
                        usage,
                        record=trace.recorder(depth=depth, entity=entity, offered=labels),
                    )
                    if parsed is None:
                        continue  # an unreadable relation choice drops the entity
                    rel_scores = parsed
                for index, rel_score in rel_scores.items():
                    triples = by_relation[relations[index]]
                    if len(triples) >= self.config.entity_sample_threshold:
                        chosen = rng.choice(
                            len(triples), self.config.entity_sample_size, replace=False
                        )
                        triples = [triples[i] for i in sorted(chosen)]
                    others = [t.other(entity) for t in triples]
                    if len(triples) == 1:
                        ent_scores: dict[int, float] = {0: 1.0}
                    else:
                        stats["entity_calls"] += 1
                        parsed = yield from ask_parsed(
                            self._entity_request(question, entity, labels[index], others),
                            partial(parse_scores, n_options=len(others), max_choices=len(others)),
                            "Reply only with letters and scores, e.g. {A: 0.5, B: 0.5}.",
                            usage,
                            record=trace.recorder(
                                depth=depth, relation=labels[index], offered=others
                            ),
                        )
                        if parsed is None:  # unreadable scores: uniform
                            parsed = {i: 1.0 / len(others) for i in range(len(others))}
                        ent_scores = parsed
                    for i, ent_score in ent_scores.items():
                        candidates.append(_Candidate(triples[i], others[i], rel_score * ent_score))
            # Stable sort: equal scores keep discovery order, so runs repeat exactly.
            best = sorted(candidates, key=lambda c: -c.score)
            chosen_now = [c for c in best if c.score > 0][: self.width]
            kept_ids = {id(c) for c in chosen_now}
            explored.append(
                {
                    "depth": depth,
                    "kept": [list(c.triple) for c in chosen_now],
                    "pruned": [list(c.triple) for c in best if id(c) not in kept_ids][
                        :MAX_RECORDED_PRUNED
                    ],
                }
            )
            if not chosen_now:
                break
            kept.extend(c.triple for c in chosen_now)
            frontier = list(dict.fromkeys(c.entity for c in chosen_now))
            visited.update(frontier)
            stats["reason_calls"] += 1
            verdict = yield from ask_parsed(
                self._reason_request(question, kept),
                parse_sufficiency,
                "Reply only with the answer names in braces, or {Unknown}.",
                usage,
                record=trace.recorder(depth=depth, facts=len(kept)),
            )
            # A topic entity is not an answer: explore on (ToG named its topic entity).
            topics = topic_names(question, [*names, *frontier_start])
            named = check_answer(verdict[1], topics) if verdict and verdict[0] else None
            if named:
                answer = named
                break

        fell_back = answer is None
        if answer is None:
            answer = yield from answer_steps(
                question,
                usage,
                self.config.answer_max_tokens,
                record=trace.recorder(),
                topics=topic_names(question, [*names, *frontier_start]),
            )
        result = MethodResult(
            question=question,
            answer=answer or UNKNOWN,
            method=self.name,
            depth=depth,
            fell_back=fell_back,
            context="\n".join(triple_text(t, self.config.verbalizer) for t in kept),
        )
        result.extra.update(stats)
        result.extra.update(topic_entities=topic, explored=explored, steps=trace.steps)
        return meter.finish(result)
