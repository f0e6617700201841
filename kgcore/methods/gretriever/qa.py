"""G-Retriever as a question-answering method for the harness: retrieve, then one LLM answer.

The retrieval is :class:`kgcore.gretriever.GRetriever` (prizes from question similarity, PCST
subgraph); the subgraph, as triples, is handed to the chat model, which answers in one call.
This is the retrieval half of G-Retriever with a prompted LLM in place of its trained GNN and
soft prompt: the harness measures its retrieval (answer recall) and its answers side by side
with the other methods.

Small graphs (ExplaGraphs' per-question graphs, up to ``whole_graph_max_nodes``) are indexed
whole; on a large graph such as MetaQA's the candidate region grows from the topic entities.
The topic entities are linked as every method links them (the kernel's ``link_steps``): the
caller's, else the names the question writes in brackets, so a bracketed question needs no
``topic_entities`` on a graph of any size. A question without either, on a graph that is not
searched whole, is linked as FastToG links it: the node names it writes as the graph spells
them (no model call), else the names the model extracts (one call), else the question itself by
the strict rules; a name that links to nothing raises
:class:`~kgcore.exceptions.EntityNotFoundError` naming the closest names. A graph searched whole
needs no topic entity: a plain question is searched by its embedding alone, as in the paper.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> engine = GRetrieverQA(InMemoryGraphStore.from_triples([("a", "r", "b")]))  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from kgcore.exceptions import ConfigurationError
from kgcore.graph.compound import compound_view
from kgcore.graph.store import GraphStore
from kgcore.gretriever.planned import preset_paths
from kgcore.linking import bracketed_entities, link_entities, names_in_question
from kgcore.llm.protocol import LLMRequest, Steps, UsageMeter
from kgcore.methods.base import StepMethod
from kgcore.methods.kernel import (
    ANSWER_SYSTEM,
    UNKNOWN,
    Linked,
    StepTrace,
    ask_parsed,
    check_answer,
    check_verbalizer,
    choice_answer,
    link_steps,
    offered_choices,
    parse_graph_answer,
    topic_names,
)
from kgcore.methods.result import MethodResult
from kgcore.settings import Settings, checked_settings
from kgcore.text.answer_forms import normalize_answer
from kgcore.text.relations import Verbalizer, verbalize_relation
from kgcore.validation import MAX_TOKENS, join_answers

if TYPE_CHECKING:  # kgcore.gretriever is imported when an engine is built, not before
    from kgcore.gretriever.result import EdgeOrder, GRetrieverResult
    from kgcore.gretriever.textualize import TextFormat


def _all_triples(store: GraphStore) -> list[tuple[str, str, str]] | None:
    listed = getattr(store, "all_triples", None)  # a CompoundNodeView over an in-memory store
    if callable(listed):
        try:
            return [tuple(t) for t in listed()]
        except ConfigurationError:
            return None
    graph = getattr(store, "graph", None)
    edges = getattr(graph, "edges", None)
    if edges is None:
        return None
    return [(h, str(r), t) for h, t, r in edges(keys=True)]


@checked_settings(
    "G-Retriever",
    limits={"max_tokens": (1, MAX_TOKENS), "max_graph_tokens": (1, 1_000_000),
            "chars_per_token": (0.1, 100.0)},
    choices={"text_format": ("triples", "paper"), "text_order": ("graph", "relevance")},
)  # fmt: skip
@dataclass(frozen=True)
class GRetrieverQAConfig(Settings):
    """The answering settings of :class:`GRetrieverQA` (its retrieval settings are
    ``PCSTSettings`` and ``RegionSettings``).

    >>> GRetrieverQAConfig(max_graph_tokens=0)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: G-Retriever setting max_graph_tokens=0 is out of ...
    """

    text_format: str = "triples"
    text_order: str = "graph"
    max_tokens: int = 96
    max_graph_tokens: int | None = 2048
    chars_per_token: float = 3.0


class GRetrieverQA(StepMethod[MethodResult]):
    """Retrieve with G-Retriever's PCST, answer with one prompted LLM call.

    Parameters
    ----------
    store : GraphStore
        The knowledge graph.
    embedder : TextEmbedder, optional
        Default: the offline all-MiniLM-L6-v2.
    text_format : {"triples", "paper"}
        How the subgraph is written into the prompt.
    text_order : {"graph", "relevance"}
        Its edges in the graph's order (the paper's) or the most relevant first.
    max_tokens : int
        Cap on the answer.
    max_graph_tokens : int or None
        Budget for the subgraph text in the prompt, so it fits the model's context window
        (a 3-hop MetaQA subgraph can run to 9,000 tokens; the local models read 4,096). Over
        budget, the most relevant edges are kept (see
        :meth:`~kgcore.gretriever.result.GRetrieverResult.textualize`). ``None``: no limit.
    chars_per_token : float
        How the budget is counted without the model's tokenizer: 3 characters a token, on the
        safe side of the 3.5 measured with Qwen2.5's tokenizer on MetaQA subgraphs.
    verbalizer : callable or {"readable", "raw"}
        How relations are written in the subgraph text
        (:func:`~kgcore.text.relations.verbalize_relation` by default; ``"raw"``: as stored).
    settings :
        ``k_nodes``, ``k_edges``, ``edge_cost`` (PCST) and ``hops``, ``max_nodes`` (region).

    The store is seen through a :class:`~kgcore.graph.compound.CompoundNodeView`: unnamed
    compound nodes (``m.0w4dx1v``) are stepped through, never shown.
    """

    name = "gretriever"

    def __init__(
        self,
        store: GraphStore,
        embedder: Any = None,
        text_format: str = "triples",
        max_tokens: int = 96,
        max_graph_tokens: int | None = 2048,
        chars_per_token: float = 3.0,
        verbalizer: Verbalizer | str = verbalize_relation,
        preset: str | None = None,
        text_order: str = "graph",
        **settings: Any,
    ) -> None:
        paths = preset_paths(preset)  # None for "paper": its prizes alone
        self.config = GRetrieverQAConfig(
            text_format=text_format,
            text_order=text_order,
            max_tokens=max_tokens,
            max_graph_tokens=max_graph_tokens,
            chars_per_token=chars_per_token,
        )
        from kgcore.embeddings import default_embedder
        from kgcore.gretriever import GRetriever, PCSTSettings, RegionSettings
        from kgcore.gretriever.textualize import check_text_format

        pcst_keys = {"k_nodes", "k_edges", "edge_cost", "num_clusters"}
        pcst = PCSTSettings(**{k: v for k, v in settings.items() if k in pcst_keys})
        region = RegionSettings(**{k: v for k, v in settings.items() if k not in pcst_keys})
        self.verbalizer = check_verbalizer("G-Retriever", verbalizer)
        store = compound_view(store)
        self.store = store
        embedder = embedder if embedder is not None else default_embedder()
        triples = _all_triples(store) if store.num_nodes() <= region.whole_graph_max_nodes else None
        if triples:
            self.retriever = GRetriever.from_triples(
                triples,
                embedder,
                cache_dir=None,
                progress=False,
                pcst=pcst,
                region=region,
                paths=paths,
            )
        else:
            self.retriever = GRetriever(
                store=store, embedder=embedder, pcst=pcst, region=region, paths=paths
            )
        self.text_format: TextFormat = check_text_format(self.config.text_format)
        self.text_order = cast("EdgeOrder", self.config.text_order)  # checked by the config
        self.max_tokens = self.config.max_tokens
        self.max_graph_tokens = self.config.max_graph_tokens
        self.chars_per_token = self.config.chars_per_token

    def fit_context(self, retrieved: GRetrieverResult) -> tuple[str, int]:
        """The subgraph text within ``max_graph_tokens``, and how many edges it keeps.

        The largest number of edges whose text fits is found by bisection (the text grows
        with every edge kept).
        """
        fmt, order = self.text_format, self.text_order
        verbalize = self.verbalizer
        text = retrieved.textualize(fmt, verbalize=verbalize, order=order)
        if self.max_graph_tokens is None:
            return text, retrieved.num_edges
        budget = int(self.max_graph_tokens * self.chars_per_token)
        if len(text) <= budget:
            return text, retrieved.num_edges
        low, high = 0, retrieved.num_edges - 1  # low always fits (or is 0), high + 1 does not
        while low < high:
            middle = (low + high + 1) // 2
            if len(retrieved.textualize(fmt, middle, verbalize, order)) <= budget:
                low = middle
            else:
                high = middle - 1
        return retrieved.textualize(fmt, low, verbalize, order), low

    @staticmethod
    def ground(
        question: str,
        answer: str | None,
        retrieved: GRetrieverResult,
        topic_entities: Sequence[str] | None = None,
    ) -> tuple[str | None, bool]:
        """The parsed answer as nodes of the retrieved subgraph, and whether it is grounded.

        A question that offers its answers in quotes (ExplaGraphs: ``'support' or
        'counter'``) is answered by one of them (``grounded=False``: no node). Otherwise each
        name is written as the subgraph node it names and the others are dropped
        (:func:`~kgcore.methods.kernel.check_answer` with ``nodes``); a topic entity, or a
        sentence about one, is no answer (as for every method) unless the subgraph holds a
        fact from it to itself (PathQuestion's ``(Indiana, recording, Indiana)``: the graph
        says it is its own answer). ``None`` when nothing is left.
        """
        choice = choice_answer(answer, offered_choices(question))
        if choice is not None:
            return choice, False
        nodes = GRetrieverQA.shown_nodes(retrieved)
        looped = {normalize_answer(e.head) for e in retrieved.edges if e.head == e.tail}
        topics = [
            t for t in topic_names(question, topic_entities) if normalize_answer(t) not in looped
        ]
        return check_answer(answer, topics, nodes=nodes), True

    @staticmethod
    def path_answer(
        question: str, retrieved: GRetrieverResult, topic_entities: Sequence[str] | None = None
    ) -> str | None:
        """The answer of the question's planned relation path, for a reply that names no node
        of the subgraph: the nodes the path reaches (its answer set, as FastToG answers with
        a followed path's) that the subgraph holds, topic entities left out; ``None`` without
        a planned path, and for a question that offers its answers in quotes. At most
        :data:`~kgcore.validation.MAX_ANSWER_CHARS` characters of them
        (:func:`~kgcore.validation.join_answers`), as every answer.

        >>> from kgcore.gretriever.result import GRetrieverResult
        >>> from kgcore.types import Triple
        >>> found = GRetrieverResult(
        ...     question="q", node_ids=(0, 1), node_texts=("Heat", "Michael Mann"),
        ...     edge_ids=(0,), edges=(Triple("Heat", "directed_by", "Michael Mann"),),
        ...     edge_endpoints=((0, 1),), node_prizes=(0.0, 3.0), edge_prizes=(1.0,),
        ...     objective=3.5, edge_cost=0.5, searched_nodes=2, searched_edges=1,
        ...     ).with_planned(["Michael Mann"])
        >>> GRetrieverQA.path_answer("who directed [Heat]", found)
        'Michael Mann'
        >>> GRetrieverQA.path_answer("'support' or 'counter'?", found) is None
        True
        """
        if offered_choices(question):
            return None
        return join_answers(GRetrieverQA._reached(question, retrieved, topic_entities)) or None

    @staticmethod
    def with_path_answers(
        answer: str,
        question: str,
        retrieved: GRetrieverResult,
        topic_entities: Sequence[str] | None = None,
    ) -> str:
        """A grounded ``answer`` that names a node the planned relation path reaches, followed
        by the path's other answers (:meth:`path_answer`'s set), as FastToG answers with a
        followed path's set: the reader named one director of two, the path reaches both.
        Any other answer is returned as it is."""
        reached = GRetrieverQA._reached(question, retrieved, topic_entities)
        names = [name.strip() for name in answer.split(";") if name.strip()]
        named = {normalize_answer(name) for name in names}
        if not named & {normalize_answer(node) for node in reached}:
            return answer
        # The named nodes first, so the cut to MAX_ANSWER_CHARS drops only the path's others.
        return join_answers([*names, *(n for n in reached if normalize_answer(n) not in named)])

    @staticmethod
    def _reached(
        question: str, retrieved: GRetrieverResult, topic_entities: Sequence[str] | None
    ) -> list[str]:
        """The planned path's answers that the subgraph holds, topic entities left out."""
        held = {normalize_answer(node) for node in GRetrieverQA.shown_nodes(retrieved)}
        topics = {normalize_answer(t) for t in topic_names(question, topic_entities)}
        return [
            node
            for node in retrieved.planned_answers
            if normalize_answer(node) in held and normalize_answer(node) not in topics
        ]

    @staticmethod
    def shown_nodes(retrieved: GRetrieverResult) -> list[str]:
        """The nodes of the retrieved subgraph: the ends of its edges, then its node texts."""
        ends = (name for edge in retrieved.edges for name in (edge[0], edge[2]))
        return list(dict.fromkeys([*ends, *retrieved.node_texts]))

    def _link_given(
        self, question: str, topic_entities: Sequence[str] | None, usage: UsageMeter
    ) -> Steps[list[str]]:
        linked: Linked = yield from link_steps(
            self.store, question, topic_entities, usage, strict=True
        )
        return linked.nodes

    def link_plain_question(self, question: str, usage: UsageMeter) -> Steps[list[str]]:
        """The topic entities of a question without brackets or given entities, as FastToG
        links them, when the retriever searches a region (``[]`` for a graph searched whole).

        1. the node names the question writes as the graph spells them
           (:func:`~kgcore.linking.names_in_question`; no model call);
        2. else the names the model extracts (``link_steps``: one call, one retry on an
           unreadable reply), each linked exactly, by case and punctuation, or by the strict
           fuzzy rule;
        3. else, the model having named nothing the graph holds: with an index to seed by
           similarity, no topic entity; otherwise :class:`~kgcore.exceptions.EntityNotFoundError`
           for the model's first name, or, when it named none, for the question read as one
           name (:meth:`~kgcore.gretriever.GRetriever.question_topics`), with the closest names.
        """
        retriever = self.retriever
        if retriever.searches_whole_graph():
            return []
        names = names_in_question(self.store, question)
        if names:
            return names
        linked: Linked = yield from link_steps(self.store, question, None, usage)
        if linked.nodes or retriever.seeds_by_similarity():
            return linked.nodes
        if linked.names:
            link_entities(self.store, linked.names[:1])  # raises, naming the closest names
        return link_entities(self.store, retriever.question_topics(question))

    def steps(
        self, question: str, topic_entities: Sequence[str] | None = None
    ) -> Steps[MethodResult]:
        """Entity linking and retrieval (graph time), then one answer call over the retrieved
        subgraph.

        The caller's topic entities, else the question's bracketed names, are linked to nodes
        as by every method (``link_steps``, strict: a name not in the graph raises
        :class:`~kgcore.exceptions.EntityNotFoundError`) and seed the retrieval's region; a
        plain question is linked by :meth:`link_plain_question`. The answer is a node of the
        retrieved subgraph (:meth:`ground`; one the planned relation path reaches is followed
        by the path's other answers, :meth:`with_path_answers`), else, for a reply that names
        none, the path's answer set (:meth:`path_answer`; ``extra["answered_by_path"]``), else
        ``Unknown`` (also when the budget sent no request); the answer step (its raw reply,
        capped, and what was read from it) is in ``extra["steps"]``, as for the other methods.
        """
        meter = self.meter()
        seeds: list[str] = yield from meter.graph_steps(
            self.link_plain_question(question, meter.usage)
            if not (topic_entities or bracketed_entities(question))
            else self._link_given(question, topic_entities, meter.usage)
        )
        with meter.graph():
            retrieved = self.retriever.retrieve(question, topic_entities=seeds or None)
        context, kept_edges = self.fit_context(retrieved)
        request = LLMRequest.from_prompt(
            f"Question: {question}\nKnowledge graph:\n{context}\n"
            "Answer the question using the graph. Give the answer in braces, like: {answer}.",
            purpose="gretriever_answer",
            system=ANSWER_SYSTEM,
            max_tokens=self.max_tokens,
        )
        trace = StepTrace()
        shown = self.shown_nodes(retrieved)
        answer = yield from ask_parsed(
            request,
            lambda text: parse_graph_answer(text, shown),
            "Reply only with the answer in braces.",
            meter.usage,
            record=trace.recorder(edges=kept_edges),
        )
        topics = [*(topic_entities or ()), *seeds]
        answer, grounded = self.ground(question, answer, retrieved, topics)
        by_path = None
        if answer is None and meter.usage.calls:  # a reply naming no node (not one never sent)
            answer = by_path = self.path_answer(question, retrieved, topics)
        elif answer is not None and grounded:  # a node the path reaches: the path's whole set
            answer = self.with_path_answers(answer, question, retrieved, topics)
        result = MethodResult(
            question=question,
            answer=answer or UNKNOWN,
            method=self.name,
            depth=0,
            grounded=grounded,
            context=context,
        )
        result.extra.update(
            {
                "edges": retrieved.num_edges,
                "nodes": retrieved.num_nodes,
                "kept_edges": kept_edges,
                "answered_by_path": bool(by_path),
                "steps": trace.steps,
            }
        )
        return meter.finish(result)
