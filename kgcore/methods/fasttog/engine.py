"""The FastToG engine: the LLM reasons community by community (Liang et al., AAAI 2025).

1. Entity linking (bracketed or given entities, else the LLM extracts them).
2. Initial phase: Local Community Search around the start community (sampling, community
   detection, modularity coarse pruning), then the LLM chooses up to W communities (fine
   pruning, multiple choice); each starts a reasoning chain.
3. Reasoning: the LLM answers from the start community and the chains, or says ``Unknown``.
4. Reasoning phase: each chain grows by one community (LCS around its last community, excluding
   the history set, then a single choice; a ``none`` stops that chain), and the LLM reasons
   again, until an answer or depth ``D_max``.
5. Fallback: IO or CoT prompting (configurable).

Communities become text through the textualizer (Triple2Text, or Graph2Text). LLM calls are
at most ``2*W*D + D + 2`` for width W and depth D (a retry of an unusable reply included). The
method is written once as a step generator (:mod:`kgcore.llm.protocol`), so it runs with any
sync or async model; :meth:`FastToG.steps` runs these steps as named phases.

The engine holds the paper's phases; each piece of work is a part, a small class of its own
module given what it needs when the engine is built: the Local Community Search step
(:mod:`~kgcore.methods.fasttog.community_search`), community texts
(:mod:`~kgcore.methods.fasttog.texts`), fine pruning (:mod:`~kgcore.methods.fasttog.choice`),
the reasoning request (:mod:`~kgcore.methods.fasttog.reasoning`), and this project's additions:
path planning (:mod:`~kgcore.methods.fasttog.path_planning`), the start community
(:mod:`~kgcore.methods.fasttog.start_community`), topic and joint facts
(:mod:`~kgcore.methods.fasttog.topic_facts`), leaf facts
(:mod:`~kgcore.methods.fasttog.leaf_facts`), similarity choices
(:mod:`~kgcore.methods.fasttog.similarity`) and answer acceptance
(:mod:`~kgcore.methods.fasttog.answer_acceptance`); ``docs/research/fasttog_deviations.md``
says why each addition is there.

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
>>> result.answer, result.llm_calls, result.extra["path"]["label"]  # the path that reaches it
('All About Eve', 1, 'directed by / directed by of')
>>> from kgcore.paths import PathSettings
>>> off = FastToGConfig(max_community_size=2, paths=PathSettings(max_hops=0))
>>> FastToG(store, off).run("which films share the director of [Cleopatra]",
...                         ScriptedLLM(["{All About Eve}"])).answer  # one community: no choice
'All About Eve'
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kgcore.community.lcs import Community, LCSStep
from kgcore.exceptions import EmptyGraphError
from kgcore.graph.compound import compound_view
from kgcore.graph.store import GraphStore
from kgcore.llm.protocol import Steps
from kgcore.methods.base import StepMethod
from kgcore.methods.fasttog.answer_acceptance import AnswerAcceptance
from kgcore.methods.fasttog.choice import CommunityChoice
from kgcore.methods.fasttog.community_search import CommunitySearch
from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.leaf_facts import LeafFacts
from kgcore.methods.fasttog.path_planning import PathPlanner
from kgcore.methods.fasttog.reasoning import Reasoning
from kgcore.methods.fasttog.result import FastToGResult
from kgcore.methods.fasttog.run_state import FastToGRun
from kgcore.methods.fasttog.similarity import SimilarityChoices
from kgcore.methods.fasttog.start_community import StartCommunity
from kgcore.methods.fasttog.texts import CommunityTexts
from kgcore.methods.fasttog.topic_facts import TopicFacts
from kgcore.methods.kernel import (
    UNKNOWN,
    Linked,
    RunMeter,
    cot_request,
    cot_sc_steps,
    io_request,
    link_steps,
    read_answer,
    step_record,
    topic_names,
)
from kgcore.paths.learned import resolve_path_scorer
from kgcore.paths.ranking import PathScorer
from kgcore.text.registry import resolve_textualizer
from kgcore.text.triple2text import CommunityTextualizer, Triple2Text

if TYPE_CHECKING:
    from kgcore.embeddings import TextEmbedder

__all__ = ["FastToG", "FastToGConfig"]


class FastToG(StepMethod[FastToGResult]):
    """Fast Think-on-Graph over a :class:`~kgcore.graph.store.GraphStore`.

    The class holds the paper's phases (:meth:`steps`); its parts are attributes, each built
    here from what it needs: ``search`` (Local Community Search), ``texts`` (community texts),
    ``similarity``, ``choice`` (fine pruning), ``reasoning``, ``topic_facts``, ``start`` (the
    start community), ``leaves``, ``paths`` (path planning) and ``acceptance``.

    Parameters
    ----------
    store : GraphStore
        The knowledge graph, seen through a
        :class:`~kgcore.graph.compound.CompoundNodeView`: unnamed compound nodes
        (``m.0w4dx1v``) are stepped through, never shown (give a view of your own for another
        pattern, or ``CompoundNodeView(store, unnamed=None)`` for none).
    config : FastToGConfig, optional
        Width, depth, community size, algorithm, temperatures, seed, ...
    textualizer : CommunityTextualizer, optional
        Community-to-text conversion; rule-based :class:`~kgcore.text.Triple2Text` by default
        (or ``"t2t"``), written as the config's ``sentence_per`` and ``merge_shared`` say, or a
        name: ``"g2t"`` (Graph2Text behind its guard), see
        :func:`~kgcore.text.resolve_textualizer`.
    name : str, optional
        The method name results report: by default ``"fasttog-node"`` for communities of one
        node (the paper's node-level variant), else ``"fasttog"``.
    embedder : TextEmbedder, optional
        Sentence embeddings that rank the first communities: with one, the default
        ``first_choice="auto"`` chooses them by similarity, without one by the LLM (the
        paper's). ``first_choice="similarity"`` without one loads the local all-MiniLM-L6-v2
        (:class:`~kgcore.embeddings.SentenceTransformerEmbedder`) at the first use.
    scorer : str, Path or PathScorer, optional
        How path planning ranks relation paths: ``"similarity"`` (the default, training-free),
        ``"trained"`` (the scorer trained here on WebQSP's training paths) or the folder of a
        scorer trained with ``kgqa paths train`` (:mod:`kgcore.paths.learned`), scoring with
        the embedder above; or a callable of your own.
    """

    def __init__(
        self,
        store: GraphStore,
        config: FastToGConfig | None = None,
        textualizer: CommunityTextualizer | str | None = None,
        name: str | None = None,
        embedder: TextEmbedder | None = None,
        scorer: str | Path | PathScorer | None = None,
    ) -> None:
        self.store = graph = compound_view(store)
        self._holds_triples = False
        self.config = cfg = config or FastToGConfig()
        node_level = cfg.lcs.max_community_size == 1
        self.name = name or ("fasttog-node" if node_level else "fasttog")
        self.textualizer: CommunityTextualizer
        if textualizer is None or textualizer == "t2t":
            self.textualizer = Triple2Text(
                merge_shared=cfg.merge_shared,
                sentence_per=cfg.sentence_per,  # type: ignore[arg-type]  # checked by the config
            )
        else:
            self.textualizer = resolve_textualizer(textualizer)  # "g2t", ... or an object
        self.texts = CommunityTexts(self.textualizer, cfg.max_option_triples)
        self.search = CommunitySearch(graph, cfg)
        self.similarity = SimilarityChoices(cfg, embedder, self.texts)
        self.reasoning = Reasoning(cfg)
        self.choice = CommunityChoice(cfg, self.texts, self.similarity)
        self.topic_facts = TopicFacts(graph, cfg, self.textualizer, self.similarity)
        self.start = StartCommunity(graph, cfg, self.textualizer, self.topic_facts)
        self.leaves = LeafFacts(self.search, self.texts)
        learned = resolve_path_scorer(scorer, self.similarity.embed_cached)
        self.paths = PathPlanner(
            graph, cfg, self.textualizer, self.similarity, self.reasoning, learned
        )
        self.acceptance = AnswerAcceptance(graph, cfg, self.topic_facts, self.paths)

    @property
    def first_choice(self) -> str:
        """How the first W communities are chosen: ``"llm"`` or ``"similarity"``
        (:attr:`~kgcore.methods.fasttog.similarity.SimilarityChoices.first_choice`)."""
        return self.similarity.first_choice

    @property
    def chain_choice(self) -> str:
        """How a chain's next community is chosen: ``"llm"`` or ``"similarity"``."""
        return self.similarity.chain_choice

    def steps(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[FastToGResult]:
        """The method as a step generator (see :mod:`kgcore.llm.protocol`), phase by phase.

        1. :meth:`_link_topic_entities`: the topic entities, as graph nodes;
           ``paths.plan`` (this project's): the relation paths closest to the
           question, followed on the graph, join the start community's facts (a chain
           question's aligned path answers);
        2. :meth:`_start_communities`: Local Community Search around them, the start community;
        3. :meth:`_first_choice`: up to W of its candidates, each starting a chain;
        4. :meth:`_reason_and_grow`: reasoning, an answer or every chain one community deeper
           (:meth:`_grow_chain`: coarse pruning, then fine pruning by the LLM), up to ``D_max``;
        5. :meth:`_fall_back`: IO, CoT or CoT-SC when no answer was found;
        6. :meth:`_finish`: the result.
        """
        if not self._holds_triples:  # asked until the graph has triples (a count is slow)
            if self.store.num_triples() == 0:
                raise EmptyGraphError("the knowledge graph has no triples: load some before asking")
            self._holds_triples = True
        run = yield from self._link_topic_entities(question, topic_entities)
        if run.topic and self.config.paths.enabled:
            if (yield from self.paths.plan(run)):
                return self._finish(run.result, run.meter)
        if run.topic:
            step = self._start_communities(run)
            yield from self._first_choice(run, step)
        # The followed paths alone are facts to reason over (a topic whose only link is a
        # self-loop has no community to start a chain).
        reasonable = bool(run.chains) or run.path is not None
        answered = (yield from self._reason_and_grow(run)) if reasonable else False
        if not answered:
            yield from self._fall_back(run)
        return self._finish(run.result, run.meter)

    # -- the phases ---------------------------------------------------------------------
    def _link_topic_entities(
        self, question: str, topic_entities: Sequence[str] | None
    ) -> Steps[FastToGRun]:
        """Phase 1, entity linking: the topic entities as graph nodes (bracketed or given
        entities, else those the LLM extracts); returns the run's state, with its meter, its
        result (no answer yet) and its trace."""
        meter = self.meter()
        linked: Linked = yield from meter.graph_steps(
            link_steps(self.store, question, topic_entities, meter.usage, strict=True)
        )
        topic = linked.nodes
        result = FastToGResult(
            question=question, answer=UNKNOWN, method=self.name, topic_entities=topic
        )
        trace: list[dict[str, object]] = []
        result.extra["steps"] = trace
        result.extra["first_choice"] = self.first_choice
        result.extra["chain_choice"] = self.chain_choice
        return FastToGRun(
            question=question,
            topic=topic,
            topics=topic_names(question, [*topic, *(topic_entities or ())]),
            meter=meter,
            result=result,
            trace=trace,
        )

    def _start_communities(self, run: FastToGRun) -> LCSStep:
        """Phase 2, Local Community Search around the topic entities (depth 0); sets the
        start community (``start.build``, after the followed paths' facts) and the
        history set, and returns the search's candidate communities, best first."""
        run.history = set(run.topic)
        with run.meter.graph():
            step = self.search.step(run.topic, run.history, depth=0, chain=0)
        run.result.lcs_steps += 1
        start = self.paths.paths_first(
            run, self.start.build(run.topic, step.candidates, run.question)
        )
        run.result.start = start
        run.start_text = start.text
        return step

    def _first_choice(self, run: FastToGRun, step: LCSStep) -> Steps[None]:
        """Phase 3, the first choice: up to W of the first step's candidates (those
        ``start.first_options`` offers), each starting a reasoning chain at depth 1; the chosen
        communities join the run's chains and its history set."""
        if not step.candidates:
            return
        offered = self.start.first_options(step.candidates, run.topic)
        options = [step.candidates[i] for i in offered]
        picked = yield from self.choice.prune(
            run, run.start_text, options, self.config.width, first=True
        )
        chosen = [offered[i] for i in picked][: self.config.width]
        for index in chosen:
            community = step.candidates[index]
            run.chains.append([self.texts.chain_community(community, len(run.chains), 1)])
            run.history.update(community.nodes)
        self._record_pruned(run.result, step.candidates, chosen, -1, 1)

    def _reason_and_grow(self, run: FastToGRun) -> Steps[bool]:
        """Phase 4, the reasoning phase: the LLM reasons over the chains; without an answer,
        every active chain grows by one community and the LLM reasons again, up to ``D_max``.
        Returns whether an answer was found (then it is the result's).

        With ``leaves.kept`` above 0 (communities of more than one node), each chain's next
        Local Community Search runs as its last community joins (``leaves.look_ahead``).
        """
        cfg = self.config
        run.active = [True] * len(run.chains)
        depth = 1
        while True:
            if cfg.leaves.shown and cfg.lcs.max_community_size > 1:
                # Node-level (M = 1): every candidate is one node; none is a leaf.
                with run.meter.graph():
                    run.ahead = self.leaves.look_ahead(run.chains, run.active, run.history, depth)
                run.result.lcs_steps += len(run.ahead)
            answer = yield from self._reason(run, depth)
            if answer is not None:
                run.result.answer = answer
                return True
            if depth >= cfg.max_depth:
                return False
            grew = yield from self._grow_chains(run, depth)
            if not grew:
                return False
            depth += 1

    def _reason(self, run: FastToGRun, depth: int) -> Steps[str | None]:
        """One reasoning step at ``depth``: the LLM answers from the start community and the
        chains, or says ``Unknown``; returns the answer, or ``None``: reasoning goes on.

        Braces are required; which name is taken for the answer is ``acceptance.accept``'s.
        """
        chains = [[c.text for c in chain] for chain in run.chains]
        request = self.reasoning.request(run.question, run.start_text, chains)
        reply = yield request
        run.meter.usage.add(reply)
        shown = run.result.reasoning_nodes() if self.config.grounded_answers else None
        parsed = self.reasoning.parse(reply.text, shown)
        answer = self.acceptance.accept(run, parsed)
        run.trace.append(step_record(request, reply, depth=depth, answer=answer, parsed=parsed))
        run.result.depth = depth
        return answer

    def _grow_chains(self, run: FastToGRun, depth: int) -> Steps[bool]:
        """Every active chain grows by one community (:meth:`_grow_chain`), chain by chain,
        from ``depth``; returns whether any chain grew."""
        grew = False
        if self.chain_choice == "similarity" and run.ahead:
            with run.meter.graph():
                self.similarity.prefetch(
                    run.question,
                    [c.candidates for i, c in run.ahead.items() if run.active[i]],
                )
        for index in range(len(run.chains)):
            if run.active[index]:
                grew = (yield from self._grow_chain(run, index, depth)) or grew
        return grew

    def _grow_chain(self, run: FastToGRun, index: int, depth: int) -> Steps[bool]:
        """Chain ``index`` grows by one community from ``depth``: coarse pruning
        (:meth:`_coarse_prune`), then fine pruning (``choice.prune``) of a single choice,
        which joins the history set; a chain that gets no candidate, or whose choice is
        ``none``, stops. Returns whether the chain grew."""
        chain = run.chains[index]
        candidates = self._coarse_prune(run, index, depth)
        if not candidates:
            run.active[index] = False
            return False
        premise = f"{run.start_text} " + " ".join(c.text for c in chain)
        chosen = yield from self.choice.prune(run, premise, candidates, 1)
        self._record_pruned(run.result, candidates, chosen[:1], index, depth + 1)
        if not chosen:
            run.active[index] = False  # the model chose none: this chain stops
            return False
        community = candidates[chosen[0]]
        chain.append(self.texts.chain_community(community, index, depth + 1))
        run.history.update(community.nodes)
        return True

    def _coarse_prune(self, run: FastToGRun, index: int, depth: int) -> Sequence[Community]:
        """Coarse pruning: the candidate communities of chain ``index``'s next step, best
        first, from the Local Community Search around its last community (community
        detection, then the best ``coarse_top_k`` communities by modularity), none of them
        holding a node of the history set; ``depth`` seeds the search."""
        if index in run.ahead:
            # Run as the community joined; drop what other chains took since.
            return [c for c in run.ahead[index].candidates if run.history.isdisjoint(c.nodes)]
        with run.meter.graph():
            step = self.search.step(
                run.chains[index][-1].nodes, run.history, depth=depth, chain=index
            )
        run.result.lcs_steps += 1
        return step.candidates

    def _fall_back(self, run: FastToGRun) -> Steps[None]:
        """Phase 5, the fallback when reasoning found no answer: IO or CoT prompting, or
        CoT-SC voting (``fallback``; with ``"none"`` the answer stays ``Unknown``); the
        fallback's answer becomes the result's."""
        cfg = self.config
        result = run.result
        if cfg.fallback == "cot-sc":
            voted = yield from cot_sc_steps(run.question, seed=cfg.seed, topic_entities=run.topics)
            run.meter.absorb(voted)
            run.trace.extend(voted.extra["steps"])
            result.answer = voted.answer
            result.fell_back = True
            result.grounded = False  # the model's own knowledge, checked sane
        elif cfg.fallback != "none":
            question = run.question
            request = cot_request(question) if cfg.fallback == "cot" else io_request(question)
            reply = yield request
            run.meter.usage.add(reply)
            run.trace.append(step_record(request, reply))
            result.answer = read_answer(reply.text, run.topics) or UNKNOWN
            result.fell_back = True
            result.grounded = False  # the model's own knowledge, checked sane

    def _finish(self, result: FastToGResult, meter: RunMeter) -> FastToGResult:
        """Phase 6, the result: usage and timings counted in (``meter``), the facts reasoning
        saw as its context, how often a Graph2Text textualizer fell back and its model's name."""
        meter.finish(result)
        parts = result.reasoning_texts()
        result.context = "\n".join(parts)
        fell_back = getattr(self.textualizer, "fell_back", None)  # Graph2Text's guard
        if callable(fell_back):
            result.extra["textualizer_fallbacks"] = sum(map(fell_back, parts))
        model_name = getattr(self.textualizer, "model_name", None)  # which Graph2Text wrote
        if isinstance(model_name, str):
            result.extra["textualizer_model"] = model_name
        return result

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
            self.texts.chain_community(c, chain, depth)
            for i, c in enumerate(candidates)
            if i not in chosen
        ]
