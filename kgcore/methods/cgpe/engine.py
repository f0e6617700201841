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
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from rapidfuzz import fuzz, process

from kgcore.exceptions import InvalidSettingError
from kgcore.graph.compound import compound_view
from kgcore.graph.memory import normalize_name
from kgcore.graph.store import GraphStore
from kgcore.linking import link_entities
from kgcore.llm.parsing import parse_choices, parse_entities
from kgcore.llm.protocol import LLMRequest, Steps, UsageMeter
from kgcore.methods.base import StepMethod
from kgcore.methods.cgpe.config import CGPEConfig
from kgcore.methods.cgpe.parsing import char_match, parse_clue_matches
from kgcore.methods.cgpe.prompts import (
    ANSWER_REMINDER,
    CLUE_REMINDER,
    STEP1_REMINDER,
    STEP2_REMINDER,
    STEP3_REMINDER,
    request,
)
from kgcore.methods.kernel import (
    MAX_RECORDED_PRUNED,
    UNKNOWN,
    StepTrace,
    answer_steps,
    ask_parsed,
    check_answer,
    options_text,
    parse_graph_answer,
    relation_text,
    topic_names,
    triple_text,
)
from kgcore.methods.result import MethodResult
from kgcore.text.relations import Verbalizer, verbalize_relation
from kgcore.types import Triple


@dataclass(frozen=True)
class CluePath:
    """A path from an initial point, with the clue each step matched."""

    nodes: tuple[str, ...]
    triples: tuple[Triple, ...] = ()
    clues: tuple[str, ...] = ()

    def extend(self, triple: Triple, clue: str) -> CluePath:
        return CluePath(
            self.nodes + (triple.other(self.nodes[-1]),),
            self.triples + (triple,),
            self.clues + (clue,),
        )

    def text(self, verbalize: Verbalizer = verbalize_relation) -> str:
        """``A -directed by-> B <-starred actors- C`` (relations through ``verbalize``)."""
        parts = [self.nodes[0]]
        for node, triple, nxt in zip(self.nodes[:-1], self.triples, self.nodes[1:], strict=True):
            relation = verbalize(triple.relation)
            arrow = f"-{relation}->" if triple.head == node else f"<-{relation}-"
            parts.append(f"{arrow} {nxt}")
        return " ".join(parts)


@dataclass(frozen=True)
class _Candidate:
    path: int
    triple: Triple
    node: str
    relation: str
    label: str

    typed: bool = False  # the label is the node's type, not the relation that reached it

    @property
    def summary(self) -> str:
        return f"{self.relation} -> {self.label}" if self.typed else self.relation


@dataclass
class _Stats:
    char_matches: int = 0
    step_calls: list[int] = field(default_factory=lambda: [0, 0, 0])


def graph_type_of(store: GraphStore, key: str = "type") -> Callable[[str], str | None] | None:
    """The graph's own node-type lookup, or ``None`` when it has no type property."""
    store = getattr(store, "inner", store)  # a CompoundNodeView: the types of its store
    method = getattr(store, "node_type", None)
    if callable(method):
        return cast(Callable[[str], str | None], method)
    graph = getattr(store, "graph", None)
    nodes = getattr(graph, "nodes", None)
    if nodes is None:
        return None
    try:
        has_types = any(key in data for _, data in nodes(data=True))
    except TypeError:
        return None
    if not has_types:
        return None

    def type_of(name: str) -> str | None:
        value = nodes[name].get(key) if name in nodes else None
        return str(value) if value else None

    return type_of


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
        """CGPE as a step generator (see :mod:`kgcore.llm.protocol`)."""
        meter = self.meter()
        usage = meter.usage
        stats = _Stats()
        rng = np.random.default_rng(self.config.seed)
        trace = StepTrace()  # every LLM step: what was offered, the raw reply, what was read

        extracted = yield from ask_parsed(
            self.clue_request(question),
            lambda text: parse_entities(text) or None,
            CLUE_REMINDER,
            usage,
            record=trace.recorder(),
        )
        clues = list(dict.fromkeys(c for c in (extracted or []) if c.strip()))
        used: set[str] = set()
        starts: list[str] = []
        with meter.graph():
            if topic_entities and self.config.use_topic_entities:
                starts = link_entities(self.store, list(topic_entities), strict=False)
                for node in starts:
                    threshold = self.config.match_threshold
                    used.update(c for c in clues if char_match(c, node) >= threshold)
            else:
                found = self.initial_points(clues)
                if found is not None:
                    used.add(found[0])
                    starts = [found[1]]

        active = [CluePath((node,)) for node in starts]
        explored: list[dict[str, object]] = []  # what each depth kept and dropped, for pictures
        leaves: list[CluePath] = []
        depth = 0
        while active and depth < self.max_depth:
            unused = [c for c in clues if c not in used]
            if not unused:
                break
            depth += 1
            with meter.graph():
                candidates = self._candidates(active)
                matches = self._char_matches(candidates, unused)
            stats.char_matches += len(matches)
            remaining = [c for c in unused if c not in {clue for _, clue in matches}]
            taken = {id(c) for c, _ in matches}
            rest = [c for c in candidates if id(c) not in taken]
            if remaining and rest:
                llm_matches = yield from self._information_matching(
                    question, active, rest, remaining, rng, usage, stats, trace
                )
                matches += llm_matches
            matches = matches[: self.max_branches]
            matched = {id(c) for c, _ in matches}
            explored.append(
                {
                    "depth": depth,
                    "kept": [list(c.triple) for c, _ in matches],
                    "pruned": [list(c.triple) for c in candidates if id(c) not in matched][
                        :MAX_RECORDED_PRUNED
                    ],
                }
            )
            extended = {c.path for c, _ in matches}
            leaves += [p for i, p in enumerate(active) if i not in extended]
            active = [active[c.path].extend(c.triple, clue) for c, clue in matches]
            used.update(clue for _, clue in matches)
        leaves += active

        fell_back = not leaves
        if leaves:
            verbalize = self.config.verbalizer
            context = "\n".join(f"{i + 1}. {p.text(verbalize)}" for i, p in enumerate(leaves))
            answer = yield from ask_parsed(
                request(
                    self.config.answer_prompt,
                    "cgpe_answer",
                    self.config.answer_max_tokens,
                    question=question,
                    paths=context,
                ),
                parse_graph_answer,
                ANSWER_REMINDER,
                usage,
                record=trace.recorder(paths=len(leaves)),
            )
        else:
            context = ""
            answer = yield from answer_steps(
                question, usage, self.config.answer_max_tokens, record=trace.recorder()
            )
        answer = check_answer(answer, topic_names(question, topic_entities))
        result = MethodResult(
            question=question,
            answer=answer or UNKNOWN,
            method=self.name,
            depth=depth,
            fell_back=fell_back,
            context=context,
        )
        result.extra.update(
            {
                "clues": clues,
                "used_clues": sorted(used),
                "paths": [p.text(self.config.verbalizer) for p in leaves],
                "char_matches": stats.char_matches,
                "step_calls": stats.step_calls,
                "topic_entities": list(starts),
                "explored": explored,
                "steps": trace.steps,
            }
        )
        return meter.finish(result)

    def _candidates(self, active: list[CluePath]) -> list[_Candidate]:
        """Every neighbour of the paths' ends that is not on its path yet."""
        batch = self.store.neighbors_batch(dict.fromkeys(p.nodes[-1] for p in active))
        candidates: list[_Candidate] = []
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
                candidates.append(_Candidate(index, triple, node, rel, label, typed))
        return candidates

    def _char_matches(
        self, candidates: list[_Candidate], unused: list[str]
    ) -> list[tuple[_Candidate, str]]:
        """Unused clues that match candidate names by characters (no LLM call)."""
        if not candidates:
            return []
        names = [normalize_name(c.node) for c in candidates]
        matches: list[tuple[_Candidate, str]] = []
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

    def _information_matching(
        self,
        question: str,
        active: list[CluePath],
        candidates: list[_Candidate],
        clues: list[str],
        rng: np.random.Generator,
        usage: UsageMeter,
        stats: _Stats,
        trace: StepTrace,
    ) -> Steps[list[tuple[_Candidate, str]]]:
        """The three LLM steps over candidates that no clue matched by characters."""
        clue_list = ", ".join(clues)
        ends = ", ".join(dict.fromkeys(p.nodes[-1] for p in active))
        # Step 1: summaries (relation, label) against the unused clues.
        summaries = list(dict.fromkeys(c.summary for c in candidates))[:26]
        stats.step_calls[0] += 1
        step1 = yield from ask_parsed(
            request(
                self.config.step1_prompt,
                "cgpe_step1",
                self.config.max_tokens,
                question=question,
                clues=clue_list,
                ends=ends,
                options=options_text(summaries),
            ),
            lambda text: parse_clue_matches(text, len(summaries), clues),
            STEP1_REMINDER,
            usage,
            record=trace.recorder(clues=clues, offered=summaries),
        )
        if not step1:
            return []
        chosen = {summaries[i]: clue for i, clue in step1.items()}
        survivors = list(
            {c.node: c for c in candidates if c.summary in chosen}.values()
        )  # one candidate per node
        if len(survivors) > min(self.config.max_entities, 26):
            keep = rng.choice(len(survivors), min(self.config.max_entities, 26), replace=False)
            survivors = [survivors[i] for i in sorted(keep)]
        # Step 2: (label, entity name) of the survivors.
        stats.step_calls[1] += 1
        step2 = yield from ask_parsed(
            request(
                self.config.step2_prompt,
                "cgpe_step2",
                self.config.max_tokens,
                question=question,
                clues=clue_list,
                options=options_text([f"{c.label}: {c.node}" for c in survivors]),
                max_branches=self.max_branches,
            ),
            lambda text: parse_choices(
                text, n_options=len(survivors), max_choices=self.max_branches
            ),
            STEP2_REMINDER,
            usage,
            record=trace.recorder(offered=[f"{c.label}: {c.node}" for c in survivors]),
        )
        if not step2:
            return []
        picked = [survivors[i] for i in step2]
        fallback = [chosen[c.summary] or clues[0] for c in picked]
        if len(clues) == 1:
            return [(c, clues[0]) for c in picked]
        # Step 3: which clue each surviving entity matches.
        stats.step_calls[2] += 1
        step3 = yield from ask_parsed(
            request(
                self.config.step3_prompt,
                "cgpe_step3",
                self.config.max_tokens,
                question=question,
                clues=clue_list,
                options=options_text(
                    [
                        f"{c.node}, from {triple_text(c.triple, self.config.verbalizer)}"
                        for c in picked
                    ]
                ),
            ),
            lambda text: parse_clue_matches(text, len(picked), clues),
            STEP3_REMINDER,
            usage,
            record=trace.recorder(clues=clues, offered=[c.node for c in picked]),
        )
        if step3 is None:
            return list(zip(picked, fallback, strict=True))
        return [(c, step3[i] or fallback[i]) for i, c in enumerate(picked) if i in step3]
