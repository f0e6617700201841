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
runs with any sync or async model; :meth:`FastToG.steps` runs these steps as named phases.

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

import dataclasses
import importlib.util
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from kgcore.community.lcs import Community, LCSStep, local_community_search
from kgcore.exceptions import ConfigurationError, EmptyGraphError
from kgcore.graph.compound import compound_view
from kgcore.graph.store import GraphStore
from kgcore.llm.parsing import parse_choices
from kgcore.llm.protocol import LLMReply, LLMRequest, Steps, UsageMeter
from kgcore.methods.base import StepMethod
from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.prompts import (
    MAX_PARSED_REPLY_CHARS,
    PRUNE_REMINDERS,
    demo_names,
    parse_braced_answer,
    prune_request,
    reason_request,
)
from kgcore.methods.fasttog.result import ChainCommunity, FastToGResult
from kgcore.methods.kernel import (
    UNKNOWN,
    Linked,
    RunMeter,
    ask_parsed,
    check_answer,
    cot_request,
    cot_sc_steps,
    io_request,
    link_steps,
    read_answer,
    report_step,
    step_record,
    topic_names,
)
from kgcore.methods.kernel.path_planning import (
    PathPlan,
    join_answers,
    path_answer,
    path_scorer,
    plan_steps,
    read_paths,
)
from kgcore.paths import FollowedPath
from kgcore.text.answer_forms import normalize_answer
from kgcore.text.registry import resolve_textualizer
from kgcore.text.triple2text import CommunityTextualizer, Triple2Text
from kgcore.types import Triple

if TYPE_CHECKING:
    from kgcore.embeddings import TextEmbedder

logger = logging.getLogger(__name__)


def offline_embedder(config: FastToGConfig) -> TextEmbedder | None:
    """The offline all-MiniLM-L6-v2 that ``kgqa`` gives FastToG, so that the default
    ``first_choice="auto"`` and ``chain_choice="auto"`` rank communities by similarity; ``None``
    when ``config`` asks the LLM for both (``"llm"``).

    Nothing is loaded until the first ranking. Without the ``embeddings`` extra (or its model
    package), ``"auto"`` gets ``None``: the LLM chooses, as in the paper (logged at INFO;
    every result's ``extra["first_choice"]`` and ``extra["chain_choice"]`` say which), while
    ``"similarity"`` is an error that names the extra and the opt-out.

    >>> offline_embedder(FastToGConfig(first_choice="llm", chain_choice="llm")) is None
    True
    """
    choices = {"first_choice": config.first_choice, "chain_choice": config.chain_choice}
    if set(choices.values()) == {"llm"}:
        return None
    if importlib.util.find_spec("sentence_transformers") is None:
        missing = "sentence-transformers is not installed: pip install 'kg-retrievers[embeddings]'"
    else:
        from kgcore.embeddings import SentenceTransformerEmbedder

        try:
            return SentenceTransformerEmbedder()
        except ConfigurationError as err:  # the model package is missing
            missing = str(err)
    forced = [name for name, choice in choices.items() if choice == "similarity"]
    if not forced:
        logger.info("FastToG: the LLM chooses the communities (%s)", missing)
        return None
    raise ConfigurationError(
        f"{forced[0]}='similarity' ranks FastToG's communities with sentence embeddings: "
        f"{missing}; or set {forced[0]}=llm to choose them with the LLM"
    )


def _links_several(community: Community, topic: Sequence[str]) -> bool:
    """Whether ``community`` links to more than one of the ``topic`` entities."""
    touched = {t.head if t.head in topic else t.tail for t in community.links}
    return len(touched & set(topic)) > 1


#: Answers named after a followed path's facts ("Leads to: A; B; C (12 in all).").
PATH_ENDS_SHOWN = 5

#: Texts whose embeddings an engine keeps (:meth:`FastToG._embed_texts`).
TEXT_VECTOR_CACHE = 50_000

#: Triples read per topic entity to find the nodes that join several of them
#: (:meth:`FastToG.joint_neighbours`).
JOINT_READ_LIMIT = 2000


def _path_record(path: FollowedPath) -> dict[str, object]:
    """What ``result.extra["path"]`` says of the followed path that gave the answer."""
    return {
        "topic": path.topic,
        "relations": [[h.relation, h.forward] for h in path.hops],
        "label": path.label(),
        "reached": len(path.answers),
        "capped": path.capped,
    }


def joint_sentence(topic: Sequence[str], joint: Sequence[str]) -> str:
    """The fact that opens the start community with several topic entities: the nodes
    linked to every one of them.

    >>> joint_sentence(["Oceania", "Hagatna"], ["Guam"])
    'Linked to each of Oceania and Hagatna: Guam.'
    >>> joint_sentence(["A", "B", "C"], ["X", "Y"])
    'Linked to each of A, B and C: X; Y.'
    """
    names = f"{', '.join(topic[:-1])} and {topic[-1]}"
    return f"Linked to each of {names}: {'; '.join(joint)}."


@dataclasses.dataclass
class _Run:
    """The state of one FastToG run, shared by its phases (:meth:`FastToG.steps`).

    ``topic`` holds the linked topic entities (graph nodes), ``topics`` the names that are no
    answer (those and the question's bracketed ones); ``history`` the nodes on the start
    community or a chain; ``active`` whether each chain may still grow; ``ahead`` the Local
    Community Search steps run as the chains' last communities joined (``leaves.with_chains``).
    """

    question: str
    topic: list[str]
    topics: list[str]
    meter: RunMeter
    result: FastToGResult
    trace: list[dict[str, object]]
    start_text: str = ""
    path: ChainCommunity | None = None
    followed: list[FollowedPath] = dataclasses.field(default_factory=list)
    history: set[str] = dataclasses.field(default_factory=set)
    active: list[bool] = dataclasses.field(default_factory=list)
    ahead: dict[int, LCSStep] = dataclasses.field(default_factory=dict)

    @property
    def chains(self) -> list[list[ChainCommunity]]:
        """The reasoning chains (the result's)."""
        return self.result.chains


class FastToG(StepMethod[FastToGResult]):
    """Fast Think-on-Graph over a :class:`~kgcore.graph.store.GraphStore`.

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
    """

    def __init__(
        self,
        store: GraphStore,
        config: FastToGConfig | None = None,
        textualizer: CommunityTextualizer | str | None = None,
        name: str | None = None,
        embedder: TextEmbedder | None = None,
    ) -> None:
        self.store = compound_view(store)
        self._embedder = embedder
        self.config = config or FastToGConfig()
        node_level = self.config.lcs.max_community_size == 1
        self.name = name or ("fasttog-node" if node_level else "fasttog")
        if textualizer is None or textualizer == "t2t":
            cfg = self.config
            self.textualizer: CommunityTextualizer = Triple2Text(
                merge_shared=cfg.merge_shared,
                sentence_per=cfg.sentence_per,  # type: ignore[arg-type]  # checked by the config
            )
        else:
            self.textualizer = resolve_textualizer(textualizer)  # "g2t", ... or an object
        self._example_names = demo_names(self.config.reason_demos)  # never taken for answers
        self._text_vectors: dict[str, np.ndarray] = {}

    # -- the method ---------------------------------------------------------------------
    def _text(self, community: Community | ChainCommunity, leaves: tuple[Triple, ...] = ()) -> str:
        """A community's text: its first ``max_option_triples`` triples (links first), then
        the linking triples of its one-node neighbours (``leaves``), all of them."""
        shown = (community.links + community.triples)[: self.config.max_option_triples]
        return self.textualizer(community.nodes, shown + leaves)

    @staticmethod
    def _leaf_links(candidates: Sequence[Community]) -> tuple[Triple, ...]:
        """The linking triples of the one-node ``candidates`` (``leaves.with_topic``,
        ``leaves.with_chains``)."""
        return tuple(t for c in candidates if len(c.nodes) == 1 for t in c.links)

    @property
    def first_choice(self) -> str:
        """How this engine chooses the first W communities: ``"llm"`` or ``"similarity"``
        (``first_choice="auto"`` resolved: by similarity when the engine has an embedder).

        >>> from kgcore.graph import InMemoryGraphStore
        >>> FastToG(InMemoryGraphStore()).first_choice
        'llm'
        >>> class Constant:  # a toy embedder
        ...     def embed(self, texts, progress=False):
        ...         return np.ones((len(texts), 2))
        >>> FastToG(InMemoryGraphStore(), embedder=Constant()).first_choice
        'similarity'
        """
        return self._resolved(self.config.first_choice)

    @property
    def chain_choice(self) -> str:
        """How this engine chooses a chain's next community: ``"llm"`` or ``"similarity"``
        (``chain_choice="auto"`` resolved as :attr:`first_choice`)."""
        return self._resolved(self.config.chain_choice)

    def _resolved(self, choice: str) -> str:
        if choice != "auto":
            return choice
        return "similarity" if self._embedder is not None else "llm"

    @property
    def embedder(self) -> TextEmbedder:
        """The sentence embedder of ``first_choice="similarity"`` (built at the first use)."""
        if self._embedder is None:
            from kgcore.embeddings import SentenceTransformerEmbedder

            self._embedder = SentenceTransformerEmbedder()
        return self._embedder

    def rank_by_similarity(self, question: str, candidates: Sequence[Community]) -> list[int]:
        """Candidate indexes, the text closest to ``question`` first (cosine similarity of
        sentence embeddings; equal scores keep the candidates' order).

        >>> import numpy as np
        >>> from kgcore.community.lcs import Community
        >>> from kgcore.graph import InMemoryGraphStore
        >>> class Letters:  # a toy embedder: counts of a few letters
        ...     def embed(self, texts, progress=False):
        ...         return np.array([[t.count(c) + 0.1 for c in "xyz"] for t in texts])
        >>> engine = FastToG(InMemoryGraphStore(), embedder=Letters())
        >>> engine.rank_by_similarity("zz", [Community(("x",), (), ()), Community(("z",), (), ())])
        [1, 0]
        """
        scores = self._similarities(question, [self._text(c) for c in candidates])
        return sorted(range(len(candidates)), key=lambda i: -float(scores[i]))

    def _similarities(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """The cosine similarity of each of ``texts`` to ``question`` (one embedding call)."""
        # An app's embedder may return unnormalised rows, or NaN for an empty text; in float64,
        # so that near ties rank the same in every run.
        embedded = self.embedder.embed([question, *texts])
        vectors = np.nan_to_num(np.asarray(embedded, dtype=np.float64))
        norms = np.linalg.norm(vectors, axis=1)
        norms[norms == 0] = 1.0
        vectors = vectors / norms[:, None]
        return vectors[1:] @ vectors[0]

    def lcs_step(
        self, current: Sequence[str], history: set[str], depth: int, chain: int
    ) -> LCSStep:
        """One Local Community Search step as the engine runs it (seeded by depth and chain).

        The step from several topic entities (depth 0) ranks first what joins them
        (``shared_first``, see :func:`~kgcore.community.lcs.coarse_prune`), unless
        ``shared_topics`` is off.
        """
        seed = self.config.seed * 1_000_003 + depth * 1_009 + chain
        shared_first = self.config.shared_topics and depth == 0 and len(current) > 1
        return local_community_search(
            self.store,
            current,
            self.config.lcs,
            exclude=history,
            seed=seed,
            shared_first=shared_first,
            leaf_slots=self.config.leaves.kept,
        )

    def choice_request(
        self,
        question: str,
        premise: str,
        candidates: Sequence[Community],
        max_choices: int,
        first: bool = False,
    ) -> LLMRequest:
        """The fine-pruning request of one choice, as the engine sends it.

        ``premise`` is what the chain holds so far (the start community's text at the first
        choice); ``first`` offers no ``{none}``: a chain must start somewhere. The prompt
        template, temperature and token cap are the config's.

        >>> from kgcore.community.lcs import Community
        >>> from kgcore.graph import InMemoryGraphStore
        >>> films = Community(("Cleopatra", "All About Eve"), (), ())
        >>> year = Community(("1963",), (), ())
        >>> request = FastToG(InMemoryGraphStore()).choice_request("q", "X.", [films, year], 1)
        >>> request.purpose, "{none}" in request.messages[-1].content
        ('prune', True)
        """
        return prune_request(
            question,
            premise,
            [self._text(c) for c in candidates],
            max_choices,
            temperature=self.config.prune_temperature,
            max_tokens=self.config.prune_max_tokens,
            allow_none=not first,
            template=self.config.prune_prompt,
            labels=self.config.option_labels,
        )

    @staticmethod
    def read_choice(
        text: str, n_options: int, max_choices: int, labels: str = "numbers"
    ) -> list[int] | None:
        """The options (0-based) a pruning reply chooses, ``[]`` for none, ``None`` when
        the reply is unusable; total, and only the first characters of ``text`` are read.
        ``labels`` is how the options were labelled (``option_labels``).

        >>> FastToG.read_choice("I pick {2}.", 3, 1), FastToG.read_choice("hmm", 3, 1)
        ([1], None)
        >>> FastToG.read_choice("{B}", 3, 1, labels="letters")
        [1]
        """
        return parse_choices(str(text)[:MAX_PARSED_REPLY_CHARS], n_options, max_choices, labels)

    def _choose(
        self,
        question: str,
        premise: str,
        candidates: Sequence[Community],
        max_choices: int,
        usage: UsageMeter,
        trace: list[dict[str, object]],
        first: bool = False,
    ) -> Steps[list[int]]:
        """Fine pruning by the LLM: valid choices kept, one retry, then no choice.

        No call when the choice is forced (as the reference code does): at the start, W or
        fewer candidates are all taken; later, a lone candidate is taken. The first choice
        offers no ``{none}``: a chain must start somewhere.
        """
        offered = [list(c.nodes) for c in candidates]
        if (first and len(candidates) <= max_choices) or (not first and len(candidates) == 1):
            trace.append(report_step({"purpose": "prune", "offered": offered, "forced": True}))
            return list(range(len(candidates)))[:max_choices]
        request = self.choice_request(question, premise, candidates, max_choices, first)

        def record(
            asked: LLMRequest, reply: LLMReply, picked: list[int] | None, retry: bool
        ) -> None:
            extra: dict[str, object] = {"retry": True} if retry else {}
            trace.append(step_record(asked, reply, offered=offered, picked=picked, **extra))

        picked = yield from ask_parsed(
            request,
            lambda text: self.read_choice(
                text, len(candidates), max_choices, self.config.option_labels
            ),
            PRUNE_REMINDERS[self.config.option_labels],
            usage,
            usable=lambda value: value is not None and (bool(value) or not first),
            record=record,
        )
        return picked or []

    def steps(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[FastToGResult]:
        """The method as a step generator (see :mod:`kgcore.llm.protocol`), phase by phase.

        1. :meth:`_link_topic_entities`: the topic entities, as graph nodes;
           :meth:`_plan_path` (``paths``, this project's): the relation paths closest to the
           question, followed on the graph, join the start community's facts (``"read"``), or
           the one the model chooses answers (``"choose"``);
        2. :meth:`_start_communities`: Local Community Search around them, the start community;
        3. :meth:`_first_choice`: up to W of its candidates, each starting a chain;
        4. :meth:`_reason_and_grow`: reasoning, an answer or every chain one community deeper
           (:meth:`_grow_chain`: coarse pruning, then fine pruning by the LLM), up to ``D_max``;
        5. :meth:`_fall_back`: IO, CoT or CoT-SC when no answer was found;
        6. :meth:`_finish`: the result.
        """
        if self.store.num_triples() == 0:
            raise EmptyGraphError("the knowledge graph has no triples: load some before asking")
        run = yield from self._link_topic_entities(question, topic_entities)
        if run.topic and self.config.paths.enabled:
            if (yield from self._plan_path(run)):
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
    ) -> Steps[_Run]:
        """Phase 1, entity linking: the topic entities as graph nodes (bracketed or given
        entities, else those the LLM extracts).

        Parameters
        ----------
        question : str
            The question.
        topic_entities : sequence of str, optional
            The caller's topic entities.

        Returns
        -------
        _Run
            The run's state: its meter, its result (no answer yet) and its trace.
        """
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
        return _Run(
            question=question,
            topic=topic,
            topics=topic_names(question, [*topic, *(topic_entities or ())]),
            meter=meter,
            result=result,
            trace=trace,
        )

    def _plan_path(self, run: _Run) -> Steps[bool]:
        """Path planning (``paths``; a deviation from the paper): the relation paths the graph
        holds around the topic entities, ranked by closeness to the question and followed on
        the graph (:mod:`kgcore.methods.kernel.path_planning`).

        ``"read"`` (the default): the best ``paths.offered`` paths open the start community's
        facts, and the path that reaches the answer the model names gives the answer set
        (:meth:`_answer_by_path`); a question read as a chain of relation phrases is first
        shown its aligned path alone (:meth:`_confirm_path`, one reasoning call).
        ``"choose"``: one call in which the model chooses a path by number; a followed path
        that reaches between 1 and ``paths.max_answers`` nodes answers with them all, best
        supported first, and is the run's one chain; one that reaches more joins the start
        community's facts, and FastToG goes on. A topic entity is an answer only when a path
        leads back to it.

        Parameters
        ----------
        run : _Run
            The run's state, with its topic entities.

        Returns
        -------
        bool
            Whether the path answered (then the answer is the result's).
        """
        settings = self.config.paths
        scorer = path_scorer(self._embed_texts if self.ranks_by_similarity else None)
        if settings.mode == "read":
            with run.meter.graph():
                run.followed, chained = read_paths(
                    self.store, run.question, run.topic, settings, scorer
                )
            if not run.followed:
                return False
            run.path = self._paths_community(run.followed)
            run.trace.append(
                report_step(
                    {
                        "purpose": "paths",
                        "offered": [f.label() for f in run.followed],
                        "reached": [len(f.answers) for f in run.followed],
                        "chain": chained,
                    }
                )
            )
            return (yield from self._confirm_path(run)) if chained else False

        def record(asked: LLMRequest, reply: LLMReply, picked: list[int] | None) -> None:
            run.trace.append(step_record(asked, reply, picked=picked))

        plan: PathPlan | None = yield from run.meter.graph_steps(
            plan_steps(
                self.store, run.question, run.topic, settings, run.meter.usage, scorer, record
            )
        )
        if plan is None:
            return False
        run.trace.append(report_step(plan.record()))
        followed = plan.followed
        if followed is None or not followed.answers:
            return False
        community = self._path_chain(followed)
        run.result.extra["path"] = _path_record(followed)
        if len(followed.answers) > settings.max_answers:
            run.path = community
            return False
        run.result.chains.append([community])
        run.result.answer = join_answers(followed.answers)
        run.result.extra["answers"] = followed.answers[: settings.max_answers]
        run.result.grounded = True
        run.result.depth = 1
        return True

    def _reason_request(
        self, question: str, start: str, chains: Sequence[Sequence[str]]
    ) -> LLMRequest:
        """A reasoning request with the config's prompt, demonstrations and sampling."""
        cfg = self.config
        return reason_request(
            question,
            start,
            chains,
            temperature=cfg.reason_temperature,
            max_tokens=cfg.reason_max_tokens,
            template=cfg.reason_prompt,
            demos=cfg.reason_demos,
            system=cfg.reason_system,
        )

    def _confirm_path(self, run: _Run) -> Steps[bool]:
        """A question read as a chain of relation phrases: the model reads the one path
        aligned with it, alone, and answers; a node the path reaches is the answer (the path's
        answer set), anything else lets FastToG go on with the path's facts in its start
        community.

        Parameters
        ----------
        run : _Run
            The run's state, with its followed path.

        Returns
        -------
        bool
            Whether the model confirmed the path (then the answer is the result's).
        """
        assert run.path is not None
        request = self._reason_request(run.question, run.path.text, [])
        reply = yield request
        run.meter.usage.add(reply)
        parsed = parse_braced_answer(reply.text, self._example_names)
        answer = self._answer_by_path(run, parsed) if parsed is not None else None
        run.trace.append(step_record(request, reply, depth=0, answer=answer, parsed=parsed))
        if answer is None:
            return False
        run.result.answer = answer
        run.result.grounded = True
        run.result.depth = 1
        return True

    def _paths_community(self, followed: Sequence[FollowedPath]) -> ChainCommunity:
        """The followed paths as facts the reasoning step reads first: each path's facts,
        then where it leads."""
        texts, triples = [], []
        for path in followed:
            nodes = path.nodes()
            ends = "; ".join(path.answers[:PATH_ENDS_SHOWN])
            more = f" ({len(path.answers)} in all)" if len(path.answers) > PATH_ENDS_SHOWN else ""
            texts.append(f"{self.textualizer(nodes, tuple(path.facts))} Leads to: {ends}{more}.")
            triples += [t for t in path.facts if t not in triples]
        nodes = tuple(dict.fromkeys(n for t in triples for n in (t.head, t.tail)))
        return ChainCommunity(
            chain=-1, depth=0, nodes=nodes, triples=tuple(triples), links=(), text=" ".join(texts)
        )

    def _path_chain(self, path: FollowedPath) -> ChainCommunity:
        """The followed path that gave the answer, as the evidence chain of the result."""
        nodes = path.nodes()
        return ChainCommunity(
            chain=0,
            depth=1,
            nodes=nodes,
            triples=tuple(path.facts),
            links=(),
            text=self.textualizer(nodes, tuple(path.facts)),
        )

    def _embed_texts(self, texts: list[str]) -> np.ndarray:
        """Sentence embeddings of ``texts``, cached (path planning embeds the same relation
        paths and phrases question after question)."""
        cache = self._text_vectors
        if len(cache) > TEXT_VECTOR_CACHE:
            cache.clear()
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            rows = np.asarray(self.embedder.embed(missing), dtype=np.float64)
            cache.update(zip(missing, rows, strict=True))
        return np.vstack([cache[t] for t in texts])

    def _start_communities(self, run: _Run) -> LCSStep:
        """Phase 2, Local Community Search around the topic entities (depth 0); sets the
        start community (:meth:`start_community`) and the history set.

        Parameters
        ----------
        run : _Run
            The run's state, with its topic entities.

        Returns
        -------
        LCSStep
            The search's candidate communities, best first.
        """
        run.history = set(run.topic)
        with run.meter.graph():
            step = self.lcs_step(run.topic, run.history, depth=0, chain=0)
        run.result.lcs_steps += 1
        start = self.start_community(run.topic, step.candidates, run.question)
        if run.path is not None:  # the followed path's facts first
            path = run.path
            start = dataclasses.replace(
                start,
                triples=path.triples + tuple(t for t in start.triples if t not in path.triples),
                text=f"{path.text} {start.text}",
            )
        run.result.start = start
        run.start_text = start.text
        return step

    def _first_choice(self, run: _Run, step: LCSStep) -> Steps[None]:
        """Phase 3, the first choice: up to W of the first step's candidates (those
        :meth:`first_options` offers), each starting a reasoning chain at depth 1.

        Parameters
        ----------
        run : _Run
            The run's state; the chosen communities join its chains and its history set.
        step : LCSStep
            The Local Community Search step around the topic entities.
        """
        if not step.candidates:
            return
        offered = self.first_options(step.candidates, run.topic)
        options = [step.candidates[i] for i in offered]
        picked = yield from self._fine_prune(
            run, run.start_text, options, self.config.width, first=True
        )
        chosen = [offered[i] for i in picked][: self.config.width]
        for index in chosen:
            community = step.candidates[index]
            run.chains.append([self._chain_community(community, len(run.chains), 1)])
            run.history.update(community.nodes)
        self._record_pruned(run.result, step.candidates, chosen, -1, 1)

    def _reason_and_grow(self, run: _Run) -> Steps[bool]:
        """Phase 4, the reasoning phase: the LLM reasons over the chains; without an answer,
        every active chain grows by one community and the LLM reasons again, up to ``D_max``.

        With ``leaves.with_chains`` (communities of more than one node), each chain's next
        Local Community Search runs as its last community joins (:meth:`_look_ahead`).

        Parameters
        ----------
        run : _Run
            The run's state, with at least one chain.

        Returns
        -------
        bool
            Whether an answer was found (then it is the result's).
        """
        cfg = self.config
        run.active = [True] * len(run.chains)
        depth = 1
        while True:
            if cfg.leaves.with_chains and cfg.lcs.max_community_size > 1:
                # Node-level (M = 1): every candidate is one node; none is a leaf.
                with run.meter.graph():
                    run.ahead = self._look_ahead(run.chains, run.active, run.history, depth)
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

    def _reason(self, run: _Run, depth: int) -> Steps[str | None]:
        """One reasoning step: the LLM answers from the start community and the chains, or
        says ``Unknown``.

        Braces are required; a topic entity is not an answer, nor (with ``grounded_answers``)
        a name the facts do not hold, and a grounded answer is written as the node it names
        ("Oxford" -> "University of Oxford").

        Parameters
        ----------
        run : _Run
            The run's state.
        depth : int
            The chains' depth, recorded as the result's.

        Returns
        -------
        str or None
            The answer, or ``None``: reasoning goes on.
        """
        cfg = self.config
        chains = [[c.text for c in chain] for chain in run.chains]
        request = self._reason_request(run.question, run.start_text, chains)
        reply = yield request
        run.meter.usage.add(reply)
        grounded = cfg.grounded_answers
        nodes = self._nodes(run.result) if grounded else None
        parsed = parse_braced_answer(reply.text, self._example_names, nodes)
        answer = check_answer(
            parsed,
            run.topics,
            facts="\n".join(self._texts(run.result)) if grounded else None,
            nodes=nodes,
        )
        if parsed is not None and run.followed:
            answer = self._answer_by_path(run, parsed) or answer
        if answer is None and parsed is not None and grounded and cfg.neighbour_answers:
            answer = self.neighbour_answer(parsed, run.topic)
        run.result.grounded = grounded  # without grounding, the answer is only checked sane
        run.trace.append(step_record(request, reply, depth=depth, answer=answer, parsed=parsed))
        run.result.depth = depth
        return answer

    def _answer_by_path(self, run: _Run, parsed: str) -> str | None:
        """``paths.mode="read"``: when the reply names a node that a followed path reaches,
        that path's answers, the named one first (:func:`~kgcore.methods.kernel.
        path_planning.path_answer`); the path becomes the result's evidence chain."""
        names = [part.strip() for part in parsed.split(";")]
        found = path_answer(
            names, run.followed, self.config.paths.max_answers, expand=len(run.topic) == 1
        )
        if found is None:
            return None
        answer, path = found
        evidence = self._path_chain(path)
        run.result.extra["path"] = _path_record(path)
        run.result.extra["answers"] = path.answers[: self.config.paths.max_answers]
        run.result.chains.insert(0, [dataclasses.replace(evidence, chain=0)])
        for index, chain in enumerate(run.result.chains[1:], start=1):
            chain[:] = [dataclasses.replace(c, chain=index) for c in chain]
        return answer

    def neighbour_answer(self, parsed: str, topic: Sequence[str]) -> str | None:
        """The names of a reply's answer that the shown facts do not hold but that are
        neighbours of a ``topic`` entity in the graph (through an unnamed compound node too),
        written as those nodes; ``None`` when there is none (``neighbour_answers``).

        The model knows "Italy uses the Euro" without the facts showing it; the graph
        confirms it. One batch read of at most :data:`JOINT_READ_LIMIT` triples per topic
        entity, only when a reply's answer was refused.

        >>> from kgcore.graph import InMemoryGraphStore
        >>> store = InMemoryGraphStore.from_triples([
        ...     ("Italy", "currency", "Euro"), ("France", "currency", "Euro")])
        >>> FastToG(store).neighbour_answer("euro; Lira", ["Italy"])
        'Euro'
        >>> FastToG(store).neighbour_answer("France", ["Italy"]) is None
        True
        """
        excluded = {normalize_answer(entity) for entity in topic}
        near: dict[str, str] = {}
        for by_node in self.topic_links(topic):
            for node in by_node:
                key = normalize_answer(node)
                if key and key not in excluded and not self.store.is_unnamed(node):
                    near.setdefault(key, node)
        names = (near.get(normalize_answer(part)) for part in parsed.split(";"))
        found = list(dict.fromkeys(name for name in names if name))
        return "; ".join(found) or None

    def _grow_chains(self, run: _Run, depth: int) -> Steps[bool]:
        """Every active chain grows by one community (:meth:`_grow_chain`), chain by chain.

        Parameters
        ----------
        run : _Run
            The run's state.
        depth : int
            The chains' depth before growing.

        Returns
        -------
        bool
            Whether any chain grew.
        """
        grew = False
        for index in range(len(run.chains)):
            if run.active[index]:
                grew = (yield from self._grow_chain(run, index, depth)) or grew
        return grew

    def _grow_chain(self, run: _Run, index: int, depth: int) -> Steps[bool]:
        """One chain grows by one community: coarse pruning (:meth:`_coarse_prune`), then fine
        pruning (:meth:`_fine_prune`) of a single choice; a chain that gets no candidate, or
        whose choice is ``none``, stops.

        Parameters
        ----------
        run : _Run
            The run's state; the chosen community joins the history set.
        index : int
            The chain.
        depth : int
            The chain's depth before growing.

        Returns
        -------
        bool
            Whether the chain grew.
        """
        chain = run.chains[index]
        candidates = self._coarse_prune(run, index, depth)
        if not candidates:
            run.active[index] = False
            return False
        premise = f"{run.start_text} " + " ".join(c.text for c in chain)
        chosen = yield from self._fine_prune(run, premise, candidates, 1)
        self._record_pruned(run.result, candidates, chosen[:1], index, depth + 1)
        if not chosen:
            run.active[index] = False  # the model chose none: this chain stops
            return False
        community = candidates[chosen[0]]
        chain.append(self._chain_community(community, index, depth + 1))
        run.history.update(community.nodes)
        return True

    def _coarse_prune(self, run: _Run, index: int, depth: int) -> Sequence[Community]:
        """Coarse pruning: the candidate communities of a chain's next step, from the Local
        Community Search around its last community (community detection, then the best
        ``coarse_top_k`` communities), none of them holding a node of the history set.

        Parameters
        ----------
        run : _Run
            The run's state.
        index : int
            The chain.
        depth : int
            The chain's depth (seeds the search).

        Returns
        -------
        sequence of Community
            The candidates, best first.
        """
        if index in run.ahead:
            # Run as the community joined; drop what other chains took since.
            return [c for c in run.ahead[index].candidates if run.history.isdisjoint(c.nodes)]
        with run.meter.graph():
            step = self.lcs_step(run.chains[index][-1].nodes, run.history, depth=depth, chain=index)
        run.result.lcs_steps += 1
        return step.candidates

    def _fine_prune(
        self,
        run: _Run,
        premise: str,
        candidates: Sequence[Community],
        max_choices: int,
        first: bool = False,
    ) -> Steps[list[int]]:
        """Fine pruning: up to ``max_choices`` of the ``candidates``, chosen by the LLM
        (:meth:`_choose`) or, with ``first_choice`` (``chain_choice``) ``"similarity"`` and
        more candidates than choices, ranked by similarity to the question (no LLM call).

        Parameters
        ----------
        run : _Run
            The run's state.
        premise : str
            What the chain holds so far (the start community's text at the first choice).
        candidates : sequence of Community
            The candidates offered.
        max_choices : int
            W at the first choice, else 1.
        first : bool, optional
            Whether this is the first choice.

        Returns
        -------
        list of int
            The chosen candidates' indexes; ``[]`` for none.
        """
        choice = self.first_choice if first else self.chain_choice
        if choice == "similarity" and len(candidates) > max_choices:
            with run.meter.graph():  # no LLM call: counted as graph time
                picked = self.rank_by_similarity(run.question, candidates)[:max_choices]
            run.trace.append(
                report_step(
                    {
                        "purpose": "prune",
                        "offered": [list(c.nodes) for c in candidates],
                        "picked": picked,
                        "ranked": "similarity",
                    }
                )
            )
            return picked
        usage = run.meter.usage
        return (
            yield from self._choose(
                run.question, premise, candidates, max_choices, usage, run.trace, first
            )
        )

    def _fall_back(self, run: _Run) -> Steps[None]:
        """Phase 5, the fallback when reasoning found no answer: IO or CoT prompting, or
        CoT-SC voting (``fallback``; with ``"none"`` the answer stays ``Unknown``).

        Parameters
        ----------
        run : _Run
            The run's state; the fallback's answer becomes the result's.
        """
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

    def first_options(
        self, candidates: Sequence[Community], topic: Sequence[str] = ()
    ) -> list[int]:
        """The indexes of the first step's candidates that may start a chain.

        With several topic entities (and ``shared_topics``), only the candidates that link to
        more than one of them are offered when there are any: what joins the topic entities is
        where a question about all of them ("which film of [A] did [B] direct") is answered,
        and a small model reads the chains it is shown side by side (``shared_first`` in
        :func:`~kgcore.community.lcs.coarse_prune` keeps them).

        With ``leaves.with_topic`` and without ``leaves.start_chains``, the one-node candidates are
        left out (all are kept when no candidate has two or more nodes): their linking triples
        are already facts of the start community, which the first choice shows as its premise
        and every reasoning step shows first, and a chain grown from one of them would expand
        a year or a genre, a hub of thousands of films. Replaying the first choice of dev
        questions 51-110 with the local 1.5B model, a community on a gold path was chosen for
        18 of 21 2-hop and 48 of 59 3-hop questions, against 14 and 34 with them offered
        (``docs/research/fasttog_deviations.md``).

        >>> from kgcore.community.lcs import Community
        >>> from kgcore.graph import InMemoryGraphStore
        >>> year = Community(("1963",), (), ())
        >>> director = Community(("All About Eve", "Joseph L. Mankiewicz"), (), ())
        >>> FastToG(InMemoryGraphStore()).first_options([year, director])
        [1]
        >>> FastToG(InMemoryGraphStore()).first_options([year])
        [0]
        """
        every = list(range(len(candidates)))
        if len(topic) > 1 and self.config.shared_topics:
            joining = [i for i in every if _links_several(candidates[i], topic)]
            if joining:
                return joining
        if not self.config.leaves.with_topic or self.config.leaves.start_chains:
            return every
        return [i for i in every if len(candidates[i].nodes) > 1] or every

    def start_community(
        self, topic: Sequence[str], candidates: Sequence[Community], question: str = ""
    ) -> ChainCommunity:
        """The start community: the topic's triples and, with ``leaves.with_topic``, the linking
        triples of the one-node communities among the first step's ``candidates``.

        Community detection runs without the visited nodes, so a node that is linked to the
        topic and to nothing else sampled (its year, genre or language) is a community of its
        own; with the topic in the graph, modularity would put it in the topic's community.
        Its linking triples join the start community's facts, where the first pruning and every
        reasoning step see them; the node stays a candidate. On MetaQA dev 3-hop, a gold answer
        is a neighbour of the topic for 27 of the first 50 questions ("the genres of the films
        that share actors with [X]" includes X's own genre), and the model rarely chose a
        one-node chain to read it. With ``question`` (and ``topic_facts``), the facts of the
        topic entities closest to it open the start community (:meth:`topic_facts`). Built
        once, after the first step: a Graph2Text textualizer runs a model per call.
        """
        triples = tuple(self.store.triples_among(topic))
        if self.config.leaves.with_topic:
            triples += self._leaf_links(candidates)
        # One batch read serves both the joint facts and the topic facts.
        with_facts = bool(question) and self.gives_topic_facts
        linked = self.topic_links(topic) if with_facts else None
        joint, joint_links = self.joint_neighbours(topic, linked)
        if joint_links:
            triples += tuple(t for t in joint_links if t not in triples)
        if with_facts:
            closest = self.topic_facts(question, topic, linked)
            triples = tuple(t for t in closest if t not in triples) + triples
        text = self.textualizer(topic, triples)
        if joint:
            text = f"{joint_sentence(topic, joint)} {text}"
        return ChainCommunity(
            chain=-1,
            depth=0,
            nodes=tuple(topic),
            triples=triples,
            links=(),
            text=text,
        )

    def topic_facts(
        self,
        question: str,
        topic: Sequence[str],
        linked: list[dict[str, list[Triple]]] | None = None,
    ) -> list[Triple]:
        """The ``topic_facts`` triples of the ``topic`` entities closest to ``question``: each
        neighbour's linking triple closest to it (cosine similarity of sentence embeddings of
        the triple as the textualizer writes it), best first; none when the engine does not
        rank by similarity (:attr:`ranks_by_similarity`).

        One batch read of at most :data:`JOINT_READ_LIMIT` triples per topic entity (through
        an unnamed compound node too, never to one; ``linked``, :meth:`topic_links`' result,
        when the caller already read it), and one embedding call; equal scores keep the
        graph's canonical order.

        >>> import numpy as np
        >>> from kgcore.graph import InMemoryGraphStore
        >>> class Letters:  # a toy embedder: counts of a few letters
        ...     def embed(self, texts, progress=False):
        ...         return np.array([[t.count(c) + 0.1 for c in "xyz"] for t in texts])
        >>> store = InMemoryGraphStore.from_triples([
        ...     ("Mexico", "anthem", "Himno"), ("Mexico", "currency", "Peso"),
        ...     ("Peso", "used in", "Mexico")])
        >>> engine = FastToG(store, FastToGConfig(topic_facts=1), embedder=Letters())
        >>> engine.topic_facts("yyy", ["Mexico"])
        [Triple(head='Mexico', relation='currency', tail='Peso')]
        >>> FastToG(store, FastToGConfig(topic_facts=1)).topic_facts("yyy", ["Mexico"])
        []
        """
        limit = self.config.topic_facts
        if not self.gives_topic_facts:
            return []
        excluded = set(topic)
        candidates: list[Triple] = []
        for by_node in self.topic_links(topic) if linked is None else linked:
            for node, linking in by_node.items():
                if node not in excluded and not self.store.is_unnamed(node):
                    candidates.extend(linking)
        candidates = list(dict.fromkeys(candidates))
        if not candidates:
            return []
        # Ranked as the rule-based Triple2Text writes them: a Graph2Text textualizer would run
        # its model once per candidate.
        writer = self.textualizer if isinstance(self.textualizer, Triple2Text) else Triple2Text()
        scores = self._similarities(question, [writer((), (t,)) for t in candidates])
        kept: dict[str, Triple] = {}
        for i in sorted(range(len(candidates)), key=lambda i: -float(scores[i])):
            triple = candidates[i]
            kept.setdefault(triple.tail if triple.head in excluded else triple.head, triple)
            if len(kept) == limit:
                break
        return list(kept.values())

    @property
    def gives_topic_facts(self) -> bool:
        """Whether the start community opens with topic facts: ``topic_facts`` is above 0 and
        the engine ranks by similarity."""
        return self.config.topic_facts > 0 and self.ranks_by_similarity

    @property
    def ranks_by_similarity(self) -> bool:
        """Whether this engine ranks by sentence embeddings: it was given an embedder, or a
        choice is ``"similarity"`` (which loads the offline one)."""
        return self._embedder is not None or "similarity" in (
            self.first_choice,
            self.chain_choice,
        )

    def topic_links(self, topic: Sequence[str]) -> list[dict[str, list[Triple]]]:
        """For each ``topic`` entity, its neighbours (through an unnamed compound node too) with
        their linking triples, in canonical order: one batch read of at most
        :data:`JOINT_READ_LIMIT` triples per entity, so a hub costs no more than that."""
        batch = self.store.neighbors_batch(topic, limit=JOINT_READ_LIMIT)
        linked: list[dict[str, list[Triple]]] = []
        for entity in topic:
            by_node: dict[str, list[Triple]] = {}
            for triple in batch.get(entity, ()):
                by_node.setdefault(triple.other(entity), []).append(triple)
            linked.append(by_node)
        return linked

    def joint_neighbours(
        self, topic: Sequence[str], linked: list[dict[str, list[Triple]]] | None = None
    ) -> tuple[list[str], list[Triple]]:
        """The named nodes linked to every one of several ``topic`` entities (through an
        unnamed compound node too), and their linking triples: at most ``joint_limit``, else
        none (a question with one topic entity has none).

        One batch read of at most :data:`JOINT_READ_LIMIT` triples per topic entity, so a hub
        costs no more than that (``linked``, :meth:`topic_links`' result, when the caller
        already read it). On the CWQ dev questions with two topic entities in the
        graph, a gold answer is among these nodes for 100 of 131, 5 or fewer of them for 99.

        >>> from kgcore.graph import InMemoryGraphStore
        >>> store = InMemoryGraphStore.from_triples([
        ...     ("Guam", "capital", "Hagatna"), ("Guam", "contained by", "Oceania"),
        ...     ("Palau", "contained by", "Oceania")])
        >>> FastToG(store).joint_neighbours(["Oceania", "Hagatna"])[0]
        ['Guam']
        >>> FastToG(store).joint_neighbours(["Oceania"])
        ([], [])
        """
        limit = self.config.joint_limit
        if len(topic) < 2 or limit == 0:
            return [], []
        linked = self.topic_links(topic) if linked is None else linked
        excluded = set(topic)
        joint = [
            node
            for node in linked[0]  # in the first topic entity's canonical order
            if node not in excluded
            and not self.store.is_unnamed(node)
            and all(node in by_node for by_node in linked[1:])
        ]
        if not joint or len(joint) > limit:
            return [], []
        links = [t for node in joint for by_node in linked for t in by_node[node]]
        return joint, list(dict.fromkeys(links))

    def _look_ahead(
        self,
        chains: list[list[ChainCommunity]],
        active: Sequence[bool],
        history: set[str],
        depth: int,
    ) -> dict[int, LCSStep]:
        """``leaves.with_chains``: the Local Community Search step from each active chain's last
        community, run as the community joins, and its one-node neighbours shown with it.

        The step is the one the chain grows from after reasoning at ``depth`` (same seed), so
        no extra sampling is spent; its one-node candidates (a film's year, genre or language,
        which community detection leaves alone, see :meth:`start_community`) lend their
        linking triples to the last community's facts, and reasoning sees them at the depth the
        community joins instead of one choice later. They stay candidates.
        """
        steps: dict[int, LCSStep] = {}
        for index, chain in enumerate(chains):
            if not active[index]:
                continue
            last = chain[-1]
            step = self.lcs_step(last.nodes, history, depth=depth, chain=index)
            steps[index] = step
            leaves = self._leaf_links(step.candidates)
            if leaves:
                chain[-1] = dataclasses.replace(
                    last, triples=last.triples + leaves, text=self._text(last, leaves)
                )
        return steps

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

    @staticmethod
    def _nodes(result: FastToGResult) -> list[str]:
        """The nodes of the facts reasoning sees, in the order it sees them."""
        communities = ([result.start] if result.start else []) + list(result.communities())
        triples = (t for c in communities for t in (*c.links, *c.triples))
        return list(dict.fromkeys(name for t in triples for name in (t.head, t.tail)))

    @staticmethod
    def _texts(result: FastToGResult) -> list[str]:
        """The facts reasoning sees: the start community, then every chain's communities."""
        parts = [result.start.text] if result.start else []
        return parts + [c.text for c in result.communities()]

    def _finish(self, result: FastToGResult, meter: RunMeter) -> FastToGResult:
        """Phase 6, the result: usage and timings counted in, the facts reasoning saw as its
        context, and how often a Graph2Text textualizer fell back.

        Parameters
        ----------
        result : FastToGResult
            The run's result.
        meter : RunMeter
            The run's accounting.

        Returns
        -------
        FastToGResult
            ``result``, completed.
        """
        meter.finish(result)
        parts = self._texts(result)
        result.context = "\n".join(parts)
        fell_back = getattr(self.textualizer, "fell_back", None)  # Graph2Text's guard
        if callable(fell_back):
            result.extra["textualizer_fallbacks"] = sum(map(fell_back, parts))
        return result
