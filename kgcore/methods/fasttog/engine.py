"""The FastToG engine: the LLM reasons community by community.

1. Entity linking (bracketed or given entities, else the LLM extracts them).
2. Initial phase: Local Community Search around the start community, then the LLM chooses up
   to W communities (multiple choice); each starts a reasoning chain.
3. Reasoning: the LLM answers from the start community and the chains, or says ``Unknown``.
4. Reasoning phase: each chain grows by one community (LCS around its last community, excluding
   the history set, then a single choice; a ``none`` stops that chain), and the LLM reasons
   again, until an answer or depth ``D_max``.
5. Fallback: IO or CoT prompting (configurable).

LLM calls are at most ``2*W*D + D + 2`` for width W and depth D (a retry of an unusable reply
included). The method is written once as a step generator (:mod:`kgcore.llm.protocol`), so it
runs with any sync or async model.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> from kgcore.llm import ScriptedLLM
>>> store = InMemoryGraphStore.from_triples([
...     ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
...     ("All About Eve", "directed_by", "Joseph L. Mankiewicz")])
>>> engine = FastToG(store, FastToGConfig(max_community_size=2))
>>> result = engine.run("which films share the director of [Cleopatra]",
...                     ScriptedLLM(["{All About Eve}"]))
>>> result.answer, result.llm_calls  # one candidate: chosen without a call
('All About Eve', 1)
"""

from __future__ import annotations

import time
from collections.abc import Generator, Sequence

from kgcore.community.lcs import Community, LCSStep, local_community_search
from kgcore.exceptions import EmptyGraphError, EntityNotFoundError
from kgcore.graph.store import GraphStore
from kgcore.linking import bracketed_entities, entity_extraction_request, link_entities
from kgcore.llm.parsing import parse_answer, parse_choices, parse_entities
from kgcore.llm.protocol import (
    LLMReply,
    LLMRequest,
    UsageMeter,
)
from kgcore.methods.base import StepMethod
from kgcore.methods.baselines import (
    UNKNOWN,
    cot_request,
    cot_sc_steps,
    drop_topic_answer,
    io_request,
    step_record,
    topic_names,
)
from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.prompts import (
    MAX_REPLY_CHARS,
    OPTION_LABELS,
    PRUNE_REMINDER,
    parse_braced_answer,
    prune_request,
    reason_request,
)
from kgcore.methods.fasttog.result import ChainCommunity, FastToGResult
from kgcore.text.registry import resolve_textualizer
from kgcore.text.triple2text import CommunityTextualizer
from kgcore.validation import check_question

Steps = Generator[LLMRequest, LLMReply, FastToGResult]


class FastToG(StepMethod[FastToGResult]):
    """Fast Think-on-Graph over a :class:`~kgcore.graph.store.GraphStore`.

    Parameters
    ----------
    store : GraphStore
        The knowledge graph.
    config : FastToGConfig, optional
        Width, depth, community size, algorithm, temperatures, seed, ...
    textualizer : CommunityTextualizer, optional
        Community-to-text conversion; rule-based :class:`~kgcore.text.Triple2Text` by default,
        or a name: ``"t2t"``, ``"g2t"`` (Graph2Text behind its guard), see
        :func:`~kgcore.text.resolve_textualizer`.
    """

    def __init__(
        self,
        store: GraphStore,
        config: FastToGConfig | None = None,
        textualizer: CommunityTextualizer | str | None = None,
    ) -> None:
        self.store = store
        self.config = config or FastToGConfig()
        self.textualizer = resolve_textualizer(textualizer)  # "t2t", "g2t", ... or an object

    # -- the method ---------------------------------------------------------------------
    def _text(self, community: Community) -> str:
        return self.textualizer(
            community.nodes, community.all_triples[: self.config.max_option_triples]
        )

    def lcs_step(
        self, current: Sequence[str], history: set[str], depth: int, chain: int
    ) -> LCSStep:
        """One Local Community Search step as the engine runs it (seeded by depth and chain)."""
        seed = self.config.seed * 1_000_003 + depth * 1_009 + chain
        return local_community_search(
            self.store, current, self.config.lcs_config(), exclude=history, seed=seed
        )

    def _choose(
        self,
        question: str,
        premise: str,
        candidates: Sequence[Community],
        max_choices: int,
        usage: UsageMeter,
        trace: list[dict[str, object]],
        first: bool = False,
    ) -> Generator[LLMRequest, LLMReply, list[int]]:
        """Fine pruning by the LLM: valid choices kept, one retry, then no choice.

        No call when the choice is forced (as the reference code does): at the start, W or
        fewer candidates are all taken; later, a lone candidate is taken. The first choice
        offers no ``{none}``: a chain must start somewhere.
        """
        offered = [list(c.nodes) for c in candidates]
        if (first and len(candidates) <= max_choices) or (not first and len(candidates) == 1):
            trace.append({"purpose": "prune", "offered": offered, "forced": True})
            return list(range(len(candidates)))[:max_choices]
        request = prune_request(
            question,
            premise,
            [self._text(c) for c in candidates],
            max_choices,
            temperature=self.config.prune_temperature,
            max_tokens=self.config.prune_max_tokens,
            allow_none=not first,
        )
        reply = yield request
        usage.add(reply)
        picked = parse_choices(
            reply.text[:MAX_REPLY_CHARS], len(candidates), max_choices, OPTION_LABELS
        )
        trace.append(step_record(request, reply, offered=offered, picked=picked))
        if picked is None or (first and not picked):
            usage.unparsed += 1
            retry = request.with_reminder(reply.text, PRUNE_REMINDER)
            reply = yield retry
            usage.add(reply)
            picked = parse_choices(
                reply.text[:MAX_REPLY_CHARS], len(candidates), max_choices, OPTION_LABELS
            )
            trace.append(step_record(retry, reply, offered=offered, picked=picked, retry=True))
            if picked is None:
                usage.unparsed += 1
        return picked or []

    def _link(
        self, question: str, topic_entities: Sequence[str] | None, usage: UsageMeter
    ) -> Generator[LLMRequest, LLMReply, list[str]]:
        names = list(topic_entities) if topic_entities else bracketed_entities(question)
        if names:
            return link_entities(self.store, names, strict=True)
        request = entity_extraction_request(question)
        reply = yield request
        usage.add(reply)
        names = parse_entities(reply.text)
        if not names:
            reply = yield request.with_reminder(
                reply.text, 'Reply only with a JSON list, e.g. ["Titanic"].'
            )
            usage.add(reply)
            names = parse_entities(reply.text)
        try:
            return link_entities(self.store, names, strict=False) if names else []
        except EntityNotFoundError:
            return []  # the model's entities are not in the graph: answer by the fallback

    def steps(self, question: str, topic_entities: Sequence[str] | None = None) -> Steps:
        """The method as a step generator; see :mod:`kgcore.llm.protocol`."""
        question = check_question(question)
        if self.store.num_triples() == 0:
            raise EmptyGraphError("the knowledge graph has no triples: load some before asking")
        cfg = self.config
        started = time.perf_counter()
        usage = UsageMeter()
        graph_started = time.perf_counter()
        topic = yield from self._link(question, topic_entities, usage)
        graph_seconds = time.perf_counter() - graph_started - usage.llm_seconds

        result = FastToGResult(
            question=question, answer=UNKNOWN, method="fasttog", topic_entities=topic
        )
        trace: list[dict[str, object]] = []
        result.extra["steps"] = trace
        topics = topic_names(question, [*topic, *(topic_entities or ())])
        chains: list[list[ChainCommunity]] = []
        if topic:
            start_triples = tuple(self.store.triples_among(topic))
            result.start = ChainCommunity(
                chain=-1,
                depth=0,
                nodes=tuple(topic),
                triples=start_triples,
                links=(),
                text=self.textualizer(topic, start_triples),
            )
            history = set(topic)
            t0 = time.perf_counter()
            step = self.lcs_step(topic, history, depth=0, chain=0)
            graph_seconds += time.perf_counter() - t0
            result.lcs_steps += 1
            if step.candidates:
                chosen = yield from self._choose(
                    question, result.start.text, step.candidates, cfg.width, usage, trace, True
                )
                for index in chosen[: cfg.width]:
                    community = step.candidates[index]
                    chains.append([self._chain_community(community, len(chains), 1)])
                    history.update(community.nodes)
                self._record_pruned(result, step.candidates, chosen[: cfg.width], -1, 1)
            result.chains = chains
            active = [True] * len(chains)
            depth = 1
            while chains:
                request = reason_request(
                    question,
                    result.start.text,
                    [[c.text for c in chain] for chain in chains],
                    temperature=cfg.reason_temperature,
                    max_tokens=cfg.reason_max_tokens,
                )
                reply = yield request
                usage.add(reply)
                # Braces required; a topic entity is not an answer (reasoning goes on).
                answer = drop_topic_answer(parse_braced_answer(reply.text), topics)
                trace.append(step_record(request, reply, depth=depth, answer=answer))
                result.depth = depth
                if answer is not None:
                    result.answer = answer
                    return self._finish(result, usage, graph_seconds, started)
                if depth >= cfg.max_depth:
                    break
                grew = False
                for index, chain in enumerate(chains):
                    if not active[index]:
                        continue
                    t0 = time.perf_counter()
                    step = self.lcs_step(chain[-1].nodes, history, depth=depth, chain=index)
                    graph_seconds += time.perf_counter() - t0
                    result.lcs_steps += 1
                    if not step.candidates:
                        active[index] = False
                        continue
                    premise = f"{result.start.text} " + " ".join(c.text for c in chain)
                    chosen = yield from self._choose(
                        question, premise, step.candidates, 1, usage, trace
                    )
                    self._record_pruned(result, step.candidates, chosen[:1], index, depth + 1)
                    if not chosen:
                        active[index] = False  # the model chose none: this chain stops
                        continue
                    community = step.candidates[chosen[0]]
                    chain.append(self._chain_community(community, index, depth + 1))
                    history.update(community.nodes)
                    grew = True
                if not grew:
                    break
                depth += 1
        if cfg.fallback == "cot-sc":
            voted = yield from cot_sc_steps(question, seed=cfg.seed, topic_entities=topics)
            usage.calls += voted.llm_calls
            usage.llm_seconds += voted.llm_seconds
            if voted.prompt_tokens is not None:
                usage.tokens_reported = True
                usage.prompt_tokens += voted.prompt_tokens
                usage.completion_tokens += voted.completion_tokens or 0
            trace.extend(voted.extra["steps"])
            result.answer = voted.answer
            result.fell_back = True
        elif cfg.fallback != "none":
            request = cot_request(question) if cfg.fallback == "cot" else io_request(question)
            reply = yield request
            usage.add(reply)
            trace.append(step_record(request, reply))
            result.answer = drop_topic_answer(parse_answer(reply.text), topics) or UNKNOWN
            result.fell_back = True
        return self._finish(result, usage, graph_seconds, started)

    def _chain_community(self, community: Community, chain: int, depth: int) -> ChainCommunity:
        return ChainCommunity(
            chain=chain,
            depth=depth,
            nodes=community.nodes,
            triples=community.triples,
            links=community.links,
            text=self._text(community),
            modularity=community.modularity,
        )

    def _record_pruned(
        self,
        result: FastToGResult,
        candidates: Sequence[Community],
        chosen: Sequence[int],
        chain: int,
        depth: int,
    ) -> None:
        """Keep the candidates the LLM did not choose (for pictures and error analysis)."""
        result.pruned += [
            self._chain_community(c, chain, depth)
            for i, c in enumerate(candidates)
            if i not in chosen
        ]

    def _finish(
        self, result: FastToGResult, usage: UsageMeter, graph_seconds: float, started: float
    ) -> FastToGResult:
        result.record_usage(usage)
        result.extra["unparsed_replies"] = usage.unparsed
        result.graph_seconds = graph_seconds
        result.total_seconds = time.perf_counter() - started
        parts = [result.start.text] if result.start else []
        parts += [c.text for c in result.communities()]
        result.context = "\n".join(parts)
        fell_back = getattr(self.textualizer, "fell_back", None)  # Graph2Text's guard
        if callable(fell_back):
            result.extra["textualizer_fallbacks"] = sum(map(fell_back, parts))
        return result
