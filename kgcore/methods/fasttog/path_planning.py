"""FastToG's path planning (``paths``; this project's, not the paper's): the relation paths the
graph holds around the topic entities, ranked by closeness to the question and followed on the
graph (:mod:`kgcore.paths.reading`), before the paper's Local Community Search.

The best :data:`~kgcore.paths.settings.OFFERED` paths open the start community's facts, and
the path that reaches the answer the model names gives the answer set; a question read as a
chain of relation phrases is answered by its aligned path (no call) when it reaches between 1
and :data:`~kgcore.paths.settings.MAX_ANSWERS` nodes, else the model reads that path alone
first. Why, and what it measurably does: ``docs/research/path_planning.md``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgcore.llm.protocol import Steps
from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.reasoning import Reasoning
from kgcore.methods.fasttog.result import ChainCommunity
from kgcore.methods.fasttog.run_state import FastToGRun
from kgcore.methods.fasttog.similarity import SimilarityChoices
from kgcore.methods.kernel import report_step, step_record
from kgcore.paths import FollowedPath
from kgcore.paths.ranking import PathScorer, path_scorer
from kgcore.paths.reading import path_answer, read_paths
from kgcore.paths.settings import MAX_ANSWERS
from kgcore.text.triple2text import CommunityTextualizer, texts_of
from kgcore.types import Triple
from kgcore.validation import join_answers

if TYPE_CHECKING:
    from kgcore.graph.compound import CompoundNodeView

#: Answers named after a followed path's facts ("Leads to: A; B; C (12 in all).").
PATH_ENDS_SHOWN = 5


def path_record(path: FollowedPath) -> dict[str, object]:
    """What ``result.extra["path"]`` says of the followed path that gave the answer."""
    return {
        "topic": path.topic,
        "relations": [[h.relation, h.forward] for h in path.hops],
        "label": path.label(),
        "reached": len(path.answers),
        "capped": path.capped,
    }


@dataclass(eq=False)
class PathPlanner:
    """The FastToG engine's path planning (a part of
    :class:`~kgcore.methods.fasttog.engine.FastToG`): paths on ``store`` as ``config`` says,
    ranked with ``similarity``'s embeddings, written by ``textualizer``; a chain question's
    path alone is read with the ``reasoning`` step's request."""

    store: CompoundNodeView
    config: FastToGConfig
    textualizer: CommunityTextualizer
    similarity: SimilarityChoices
    reasoning: Reasoning
    #: A path scorer of the caller's (``scorer="trained"``: :mod:`kgcore.paths.learned`);
    #: ``None``: the training-free ranking.
    learned: PathScorer | None = None

    def plan(self, run: FastToGRun) -> Steps[bool]:
        """Path planning, before the start community: the followed paths join the start
        community's facts (``run.path``), and a question read as a chain of relation phrases
        is answered by its aligned path, or shown it first (:meth:`_confirm_path`), as a
        trained scorer's best path is shown first. A topic
        entity is an answer only when a path leads back to it.

        Parameters
        ----------
        run : FastToGRun
            The run's state, with its topic entities.

        Returns
        -------
        bool
            Whether the path answered (then the answer is the result's).
        """
        with run.meter.graph():
            run.followed, chained = read_paths(
                self.store, run.question, run.topic, self.config.paths, self.scorer()
            )
        if not run.followed:
            return False
        texts = self._path_texts(run.followed)
        run.path = self._paths_community(run.followed, texts)
        # Every followed path's whole answer set: the documents list each one (the prompt
        # shows PATH_ENDS_SHOWN of them).
        run.result.extra["reached"] = [
            {"label": f.label(), "answers": list(f.answers[:MAX_ANSWERS])} for f in run.followed
        ]
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
        if chained:
            if self._answer_by_chain(run):
                return True
            return (yield from self._confirm_path(run, run.path.text))  # the one path
        if self.learned is None or len(run.topic) != 1:
            return False
        # A trained scorer's best path is read alone first, as a chain question's aligned
        # path is: among the other paths' facts a small model loses it. Not for a question
        # about several entities: one path from one of them leaves the others out.
        return (yield from self._confirm_path(run, texts[0]))

    def scorer(self) -> PathScorer:
        """How this engine ranks relation paths: the scorer it was given, else
        :func:`~kgcore.paths.ranking.path_scorer` (with its embedder when it ranks by
        similarity)."""
        if self.learned is not None:
            return self.learned
        similarity = self.similarity
        if not similarity.ranks_by_similarity:
            return path_scorer()
        return path_scorer(similarity.embed_cached, embed_caches=True)

    def _answer_by_chain(self, run: FastToGRun) -> bool:
        """A question read as a chain of relation phrases is answered by the nodes its aligned
        path reaches (between 1 and :data:`~kgcore.paths.settings.MAX_ANSWERS`),
        in the path's order, with no LLM call; the path is the result's evidence chain.

        Returns
        -------
        bool
            Whether the path answered (with too many or no nodes, the model reads it).
        """
        path = run.followed[0]
        if not 1 <= len(path.answers) <= MAX_ANSWERS:
            return False
        run.result.answer = join_answers(path.answers)
        self._path_evidence(run, path)
        run.result.grounded = True
        run.result.depth = 1
        run.trace.append(report_step({"purpose": "chain answer", "path": path.label()}))
        return True

    def _confirm_path(self, run: FastToGRun, text: str) -> Steps[bool]:
        """The model reads one path alone (``text``: a chain question's aligned path, or a
        trained scorer's best path) and answers; a node a followed path reaches is the answer
        (that path's answer set), anything else lets FastToG go on with the paths' facts in
        its start community.

        Parameters
        ----------
        run : FastToGRun
            The run's state, with its followed paths.
        text : str
            The path's facts as the model reads them.

        Returns
        -------
        bool
            Whether the model confirmed the path (then the answer is the result's).
        """
        request = self.reasoning.request(run.question, text, [])
        reply = yield request
        run.meter.usage.add(reply)
        parsed = self.reasoning.parse(reply.text)
        answer = self.answer_by_path(run, parsed) if parsed is not None else None
        run.trace.append(step_record(request, reply, depth=0, answer=answer, parsed=parsed))
        if answer is None:
            return False
        run.result.answer = answer
        run.result.grounded = True
        run.result.depth = 1
        return True

    def answer_by_path(
        self, run: FastToGRun, parsed: str, resolved: str | None = None
    ) -> str | None:
        """When the reply names a node that a followed path reaches, that path's answers, the
        named one first (:func:`~kgcore.paths.reading.path_answer`); the path becomes the
        result's evidence chain.

        ``resolved`` is the reply's answer as the shown nodes it names ("2014" as "2014 NFC
        Championship Game"), tried after the names as the model wrote them."""
        names = [part.strip() for part in parsed.split(";")]
        if resolved is not None:
            names += [part.strip() for part in resolved.split(";")]
        found = path_answer(names, run.followed, MAX_ANSWERS, expand=len(run.topic) == 1)
        if found is None:
            return None
        answer, path = found
        self._path_evidence(run, path)
        return answer

    def _path_evidence(self, run: FastToGRun, path: FollowedPath) -> None:
        """The followed path that gave the answer as the result's evidence:
        ``extra["path"]``, ``extra["answers"]`` and chain 0 (the other chains renumbered)."""
        answers = path.answers[:MAX_ANSWERS]
        run.result.extra["path"] = path_record(path)
        run.result.extra["answers"] = answers
        run.result.chains.insert(0, [self._path_chain(path, answers)])
        for index, chain in enumerate(run.result.chains[1:], start=1):
            chain[:] = [dataclasses.replace(c, chain=index) for c in chain]

    @staticmethod
    def paths_first(run: FastToGRun, start: ChainCommunity) -> ChainCommunity:
        """The start community with the followed paths' facts (``run.path``) first."""
        if run.path is None:
            return start
        path = run.path
        return dataclasses.replace(
            start,
            triples=path.triples + tuple(t for t in start.triples if t not in path.triples),
            text=f"{path.text} {start.text}",
        )

    def _path_texts(self, followed: Sequence[FollowedPath]) -> list[str]:
        """Each followed path as the model reads it: its facts, then where it leads."""
        texts = []
        written = texts_of(self.textualizer, [(p.nodes(), tuple(p.facts)) for p in followed])
        for path, text in zip(followed, written, strict=True):
            ends = "; ".join(path.answers[:PATH_ENDS_SHOWN])
            more = f" ({len(path.answers)} in all)" if len(path.answers) > PATH_ENDS_SHOWN else ""
            texts.append(f"{text} Leads to: {ends}{more}.")
        return texts

    def _paths_community(
        self, followed: Sequence[FollowedPath], texts: Sequence[str]
    ) -> ChainCommunity:
        """The followed paths as facts the reasoning step reads first (``texts``:
        :meth:`_path_texts`)."""
        triples: list[Triple] = []
        for path in followed:
            triples += [t for t in path.facts if t not in triples]
        nodes = tuple(dict.fromkeys(n for t in triples for n in (t.head, t.tail)))
        return ChainCommunity(
            chain=-1, depth=0, nodes=nodes, triples=tuple(triples), links=(), text=" ".join(texts)
        )

    def _path_chain(self, path: FollowedPath, answers: Sequence[str] = ()) -> ChainCommunity:
        """A followed path as a chain community: its facts, or, given the ``answers`` it gave,
        the facts of a walk reaching each of them (the result's evidence chain)."""
        facts = tuple(path.supporting_facts(answers) if answers else path.facts)
        nodes = tuple(dict.fromkeys(n for t in facts for n in (t.head, t.tail)))
        return ChainCommunity(
            chain=0,
            depth=1,
            nodes=nodes,
            triples=facts,
            links=(),
            text=self.textualizer(nodes, facts),
        )
