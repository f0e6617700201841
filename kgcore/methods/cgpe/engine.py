"""Clue-Guided Path Exploration (CGPE, Tao et al. 2024).

CGPE lets the question's *clues* steer a walk on the graph, so the LLM reads short summaries
instead of whole neighbourhoods:

1. *Clue extraction* (one call): the LLM lists the entities and things the question mentions.
2. *Initial points*: clues are matched to node names by characters (rapidfuzz ``ratio`` on
   normalised names); the best match is enough to start. Topic entities given by the caller
   (MetaQA's bracketed entity, say) are used as the initial points instead, and the clues they
   match count as used.
3. *Path exploration*: from each path's end every neighbour is a candidate. An unused clue that
   matches a candidate's name by characters is taken at once, without an LLM call. The other
   unused clues go through three-step information matching:

   - step 1: the distinct summaries ``(relation, node type label)`` of the candidates, matched
     against the unused clues (one call);
   - step 2: ``(label, entity name)`` of the candidates behind the chosen summaries (one call;
     at most ``max_entities`` are shown, a larger set is sampled with the seed);
   - step 3: the LLM states which clue each surviving entity matches, now seeing the full
     triple that reaches it (one call, skipped when a single clue is left, since every
     survivor can only match that one).

4. *Rules*: a clue used at one depth is not matched again; several matches of a clue branch
   into candidate paths (at most ``max_branches`` per depth); exploration ends when the paths,
   alone or combined, cover every clue, when no path can be extended, or at ``max_depth``.
   The LLM then answers over the paths (one call). Without any initial point CGPE answers by CoT.

**Node type label.** Step 1 and step 2 show a node's type. When the graph has a type property
(a ``node_type(name)`` method on the store, a ``type`` attribute on the nodes of an
:class:`~kgcore.graph.InMemoryGraphStore`, or a ``type_of`` callable passed in), that is used.
Otherwise -- as on MetaQA, whose nodes carry no types -- *the relation that reached the node
stands in for its type*, so a film reached by ``starred_actors`` is labelled ``starred_actors``.

Unparseable replies are asked again once with a format reminder; then step 1 and step 2 count
as "no match", step 3 falls back to the clue chosen in step 1, and the answer to ``Unknown``.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.llm import ScriptedLLM
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
>>> replies = ['["Cleopatra", "director"]', "{A: director}", "{A}", "{Joseph L. Mankiewicz}"]
>>> llm = ScriptedLLM(replies)
>>> result = CGPE(store).run("who is the director of Cleopatra", llm)
>>> result.answer, result.llm_calls, result.depth
('Joseph L. Mankiewicz', 4, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process

from kgcore.exceptions import InvalidSettingError
from kgcore.graph.compound import compound_view
from kgcore.graph.memory import normalize_name
from kgcore.graph.store import GraphStore
from kgcore.linking import link_entities
from kgcore.llm.parsing import parse_entities
from kgcore.llm.protocol import LLMRequest, Steps
from kgcore.methods.base import StepMethod
from kgcore.methods.cgpe.clue_paths import Candidate, CluePath, graph_type_of
from kgcore.methods.cgpe.config import CGPEConfig
from kgcore.methods.cgpe.information_matching import information_matching
from kgcore.methods.cgpe.parsing import char_match
from kgcore.methods.cgpe.prompts import ANSWER_REMINDER, CLUE_REMINDER, request
from kgcore.methods.cgpe.run_state import CGPERun
from kgcore.methods.kernel import (
    MAX_RECORDED_PRUNED,
    UNKNOWN,
    answer_steps,
    ask_parsed,
    check_answer,
    parse_graph_answer,
    relation_text,
    topic_names,
)
from kgcore.methods.result import MethodResult

__all__ = ["CGPE", "CluePath", "graph_type_of"]


class CGPE(StepMethod[MethodResult]):
    """The CGPE engine, written once as a step generator.

    Parameters
    ----------
    store : GraphStore
        The knowledge graph, seen through a
        :class:`~kgcore.graph.compound.CompoundNodeView` (unnamed compound nodes are stepped
        through, never shown).
    config : CGPEConfig, optional
        Every setting (:class:`~kgcore.methods.cgpe.config.CGPEConfig`'s defaults when left
        out).
    type_of : callable, optional
        ``node -> type label``; by default the graph's type property when it has one (see the
        module docstring), else the relation that reached the node.
    **overrides :
        :class:`~kgcore.methods.cgpe.config.CGPEConfig` fields that override ``config``'s
        (``CGPE(store, max_depth=2)``).

    Example
    -------
    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([("a", "r", "b")])
    >>> CGPE(store).max_depth, CGPE(store, CGPEConfig(max_depth=2)).config.max_depth
    (3, 2)
    """

    name = "cgpe"

    def __init__(
        self,
        store: GraphStore,
        config: CGPEConfig | None = None,
        type_of: Callable[[str], str | None] | None = None,
        **overrides: Any,
    ) -> None:
        self.store = compound_view(store)
        if config is not None and not isinstance(config, CGPEConfig):
            raise InvalidSettingError(f"config must be a CGPEConfig, got {type(config).__name__}")
        self.config = (config or CGPEConfig()).with_overrides(**overrides)
        self.type_of = type_of if type_of is not None else graph_type_of(self.store)

    @property
    def max_depth(self) -> int:
        """Hops explored at most."""
        return self.config.max_depth

    @property
    def max_branches(self) -> int:
        """Paths kept per depth."""
        return self.config.max_branches

    def label(self, node: str, relation: str) -> str:
        """The node's type label: its type property, else the relation that reached it."""
        if self.type_of is not None:
            found = self.type_of(node)
            if found:
                return found
        return relation

    # -- prompts -----------------------------------------------------------------------
    def clue_request(self, question: str) -> LLMRequest:
        """The clue-extraction request."""
        return request(
            self.config.clue_prompt, "cgpe_clues", self.config.max_tokens + 16, question=question
        )

    # -- the method ----------------------------------------------------------------------
    def initial_points(self, clues: Sequence[str]) -> tuple[str, str] | None:
        """``(clue, node)`` of the best character match of a clue to a node name."""
        best: tuple[float, str, str] | None = None
        for clue in clues:
            for node in self.store.search_nodes(clue, limit=5):
                score = char_match(clue, node)
                if score >= self.config.match_threshold and (best is None or score > best[0]):
                    best = (score, clue, node)
        return None if best is None else (best[1], best[2])

    def steps(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[MethodResult]:
        """CGPE as a step generator (see :mod:`kgcore.llm.protocol`), phase by phase.

        1. :meth:`_extract_clues`: the question's clues (one call);
        2. :meth:`_locate_initial_points`: the nodes the paths start from;
        3. :meth:`_explore_paths`: the paths grow depth by depth (:meth:`_explore_depth`: clues
           matched by characters, then three-step information matching,
           :mod:`~kgcore.methods.cgpe.information_matching`), until every clue is used, no
           path grows or ``max_depth``;
        4. :meth:`_answer`: the LLM answers over the paths, or by CoT without any;
        5. :meth:`_result`: the result.
        """
        meter = self.meter()
        run = CGPERun(question=question, meter=meter, rng=np.random.default_rng(self.config.seed))
        run.clues = yield from self._extract_clues(run)
        with meter.graph():
            run.starts = self._locate_initial_points(run, topic_entities)
        yield from self._explore_paths(run)
        context = self._paths_context(run.leaves)
        answer = yield from self._answer(run, context, topic_entities)
        return meter.finish(self._result(run, answer, context))

    # -- the phases ---------------------------------------------------------------------
    def _extract_clues(self, run: CGPERun) -> Steps[list[str]]:
        """Phase 1, clue extraction: the entities and things the question mentions (one call,
        retried once when unusable).

        Parameters
        ----------
        run : CGPERun
            The run's state.

        Returns
        -------
        list of str
            The distinct, non-blank clues, in the reply's order.
        """
        extracted = yield from ask_parsed(
            self.clue_request(run.question),
            lambda text: parse_entities(text) or None,
            CLUE_REMINDER,
            run.meter.usage,
            record=run.trace.recorder(),
        )
        return list(dict.fromkeys(c for c in (extracted or []) if c.strip()))

    def _locate_initial_points(
        self, run: CGPERun, topic_entities: Sequence[str] | None
    ) -> list[str]:
        """Phase 2, initial points: the caller's topic entities as nodes (the clues they match
        by characters count as used), else the best character match of a clue to a node name
        (:meth:`initial_points`; that clue counts as used).

        Parameters
        ----------
        run : CGPERun
            The run's state, with its clues; the used clues are added to it.
        topic_entities : sequence of str, optional
            The caller's topic entities (used when ``use_topic_entities``).

        Returns
        -------
        list of str
            The nodes the paths start from (none: CGPE answers by CoT).
        """
        if topic_entities and self.config.use_topic_entities:
            linked = link_entities(self.store, list(topic_entities), strict=False)
            starts = [node for node in linked if self.store.has_node(node)]  # never invented
            for node in starts:
                threshold = self.config.match_threshold
                run.used.update(c for c in run.clues if char_match(c, node) >= threshold)
            return starts
        found = self.initial_points(run.clues)
        if found is None or not self.store.has_node(found[1]):
            return []
        run.used.add(found[0])
        return [found[1]]

    def _explore_paths(self, run: CGPERun) -> Steps[None]:
        """Phase 3, path exploration: from the initial points, the paths grow one depth at a
        time (:meth:`_explore_depth`) while clues are left unused, some path grows and
        ``max_depth`` is not reached.

        Parameters
        ----------
        run : CGPERun
            The run's state; the paths that end up explored are its ``leaves``.
        """
        active = [CluePath((node,)) for node in run.starts]
        while active and run.depth < self.max_depth:
            unused = [c for c in run.clues if c not in run.used]
            if not unused:
                break
            run.depth += 1
            active = yield from self._explore_depth(run, active, unused)
        run.leaves += active

    def _explore_depth(
        self, run: CGPERun, active: list[CluePath], unused: list[str]
    ) -> Steps[list[CluePath]]:
        """One depth of path exploration: the neighbours of the paths' ends that an unused
        clue matches by characters (no call), then three-step information matching of the
        other clues (:mod:`~kgcore.methods.cgpe.information_matching`); at most
        ``max_branches`` matches, each extending its path.

        Parameters
        ----------
        run : CGPERun
            The run's state; the matched clues count as used, the paths that do not grow join
            its ``leaves``, and what the depth kept and dropped its ``explored``.
        active : list of CluePath
            The paths that grew at the previous depth.
        unused : list of str
            The clues not matched yet.

        Returns
        -------
        list of CluePath
            The extended paths.
        """
        with run.meter.graph():
            candidates = self._candidates(active)
            matches = self._char_matches(candidates, unused)
        run.stats.char_matches += len(matches)
        remaining = [c for c in unused if c not in {clue for _, clue in matches}]
        taken = {id(c) for c, _ in matches}
        rest = [c for c in candidates if id(c) not in taken]
        if remaining and rest:
            llm_matches = yield from information_matching(run, self.config, active, rest, remaining)
            matches += llm_matches
        matches = matches[: self.max_branches]
        matched = {id(c) for c, _ in matches}
        run.explored.append(
            {
                "depth": run.depth,
                "kept": [list(c.triple) for c, _ in matches],
                "pruned": [list(c.triple) for c in candidates if id(c) not in matched][
                    :MAX_RECORDED_PRUNED
                ],
            }
        )
        extended = {c.path for c, _ in matches}
        run.leaves += [p for i, p in enumerate(active) if i not in extended]
        run.used.update(clue for _, clue in matches)
        return [active[c.path].extend(c.triple, clue) for c, clue in matches]

    def _paths_context(self, leaves: Sequence[CluePath]) -> str:
        """The explored paths as the answer prompt shows them, numbered (``""`` for none)."""
        verbalize = self.config.verbalizer
        return "\n".join(f"{i + 1}. {p.text(verbalize)}" for i, p in enumerate(leaves))

    def _answer(
        self, run: CGPERun, context: str, topic_entities: Sequence[str] | None
    ) -> Steps[str | None]:
        """Phase 4, the answer: the LLM answers over the explored paths (one call, retried
        once when unusable), or by CoT when there is none; a topic entity is not an answer.

        Parameters
        ----------
        run : CGPERun
            The run's state, with its explored paths (``leaves``).
        context : str
            The paths as :meth:`_paths_context` numbers them.
        topic_entities : sequence of str, optional
            The caller's topic entities.

        Returns
        -------
        str or None
            The answer, or ``None`` when there is none.
        """
        # The nodes of the explored paths: the answer is one of them (the model shortens
        # names), or none.
        nodes = list(dict.fromkeys(node for path in run.leaves for node in path.nodes))
        if run.leaves:
            answer = yield from ask_parsed(
                request(
                    self.config.answer_prompt,
                    "cgpe_answer",
                    self.config.answer_max_tokens,
                    question=run.question,
                    paths=context,
                ),
                lambda text: parse_graph_answer(text, nodes),
                ANSWER_REMINDER,
                run.meter.usage,
                record=run.trace.recorder(paths=len(run.leaves)),
            )
        else:
            answer = yield from answer_steps(
                run.question,
                run.meter.usage,
                self.config.answer_max_tokens,
                record=run.trace.recorder(),
            )
        topics = topic_names(run.question, topic_entities)
        if not run.leaves:  # the CoT fallback: the model's own answer, checked sane
            return check_answer(answer, topics, question=run.question)
        return check_answer(answer, topics, nodes=nodes)

    def _result(self, run: CGPERun, answer: str | None, context: str) -> MethodResult:
        """Phase 5, the result: the answer (``Unknown`` for none), the depth reached, the
        paths as context, and in ``extra`` the clues, the paths, the exploration and the trace.

        Parameters
        ----------
        run : CGPERun
            The run's state.
        answer : str or None
            The answer of :meth:`_answer`.
        context : str
            The explored paths (:meth:`_paths_context`).

        Returns
        -------
        MethodResult
            The result, usage not yet counted in.
        """
        result = MethodResult(
            question=run.question,
            answer=answer or UNKNOWN,
            method=self.name,
            depth=run.depth,
            fell_back=not run.leaves,
            grounded=bool(run.leaves),
            context=context,
        )
        result.extra.update(
            {
                "clues": run.clues,
                "used_clues": sorted(run.used),
                "paths": [p.text(self.config.verbalizer) for p in run.leaves],
                "char_matches": run.stats.char_matches,
                "step_calls": run.stats.step_calls,
                "topic_entities": list(run.starts),
                "explored": run.explored,
                "steps": run.trace.steps,
            }
        )
        return result

    def _candidates(self, active: list[CluePath]) -> list[Candidate]:
        """Every neighbour of the paths' ends that is not on its path yet."""
        batch = self.store.neighbors_batch(dict.fromkeys(p.nodes[-1] for p in active))
        candidates: list[Candidate] = []
        for index, path in enumerate(active):
            end = path.nodes[-1]
            for triple in batch.get(end, ()):
                node = triple.other(end)
                if node in path.nodes:
                    continue
                rel = relation_text(triple.relation, triple.head == end, self.config.verbalizer)
                verbalized = self.config.verbalizer(triple.relation)
                label = self.label(node, verbalized)
                typed = label != verbalized
                candidates.append(Candidate(index, triple, node, rel, label, typed))
        return candidates

    def _char_matches(
        self, candidates: list[Candidate], unused: list[str]
    ) -> list[tuple[Candidate, str]]:
        """Unused clues that match candidate names by characters (no LLM call)."""
        if not candidates:
            return []
        names = [normalize_name(c.node) for c in candidates]
        matches: list[tuple[Candidate, str]] = []
        for clue in unused:
            for _, _, index in process.extract(
                normalize_name(clue),
                names,
                scorer=fuzz.ratio,
                score_cutoff=self.config.match_threshold,
                limit=self.max_branches,
            ):
                matches.append((candidates[index], clue))
        return matches
