"""Answer acceptance: which name of a reasoning reply FastToG takes for its answer.

The paper takes the model's answer as it is. Here a topic entity is no answer; with
``grounded_answers`` neither is a name the shown facts do not hold, and an answer the model
shortened is written as the node the facts name ("Oxford" -> "University of Oxford",
:func:`~kgcore.methods.kernel.check_answer`); a node a followed relation path reaches answers
with that path's answer set (path planning); and with ``neighbour_answers`` a refused name
that is a neighbour of a topic entity in the graph is kept (:meth:`AnswerAcceptance.
neighbour_answer`). Why, and what it measurably does: ``docs/research/fasttog_deviations.md``
(``grounded_answers``, ``neighbour_answers``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kgcore.graph.compound import CompoundNodeView
from kgcore.methods.fasttog.config import FastToGConfig
from kgcore.methods.fasttog.path_planning import PathPlanner
from kgcore.methods.fasttog.run_state import FastToGRun
from kgcore.methods.fasttog.topic_facts import TopicFacts
from kgcore.methods.kernel import check_answer
from kgcore.text.answer_forms import normalize_answer


@dataclass(eq=False)
class AnswerAcceptance:
    """The FastToG engine's answer acceptance (a part of
    :class:`~kgcore.methods.fasttog.engine.FastToG`): ``config``'s ``grounded_answers`` and
    ``neighbour_answers``, a path's answer set through ``paths``, a topic entity's
    neighbours on ``store`` through ``topic_facts``."""

    store: CompoundNodeView
    config: FastToGConfig
    topic_facts: TopicFacts
    paths: PathPlanner

    def accept(self, run: FastToGRun, parsed: str | None) -> str | None:
        """The answer a reasoning reply gives (``parsed``: the names in its braces), or
        ``None``: reasoning goes on. Sets whether the result is grounded."""
        cfg = self.config
        grounded = cfg.grounded_answers
        answer = check_answer(
            parsed,
            run.topics,
            facts="\n".join(run.result.reasoning_texts()) if grounded else None,
            nodes=run.result.reasoning_nodes() if grounded else None,
        )
        if parsed is not None and run.followed:
            answer = self.paths.answer_by_path(run, parsed, answer) or answer
        if answer is None and parsed is not None and grounded and cfg.neighbour_answers:
            answer = self.neighbour_answer(parsed, run.topic)
        run.result.grounded = grounded  # without grounding, the answer is only checked sane
        return answer

    def neighbour_answer(self, parsed: str, topic: Sequence[str]) -> str | None:
        """The names of a reply's answer that the shown facts do not hold but that are
        neighbours of a ``topic`` entity in the graph (through an unnamed compound node too),
        written as those nodes; ``None`` when there is none (``neighbour_answers``).

        The model knows "Italy uses the Euro" without the facts showing it; the graph
        confirms it. One batch read of at most
        :data:`~kgcore.methods.fasttog.topic_facts.JOINT_READ_LIMIT` triples per topic
        entity, only when a reply's answer was refused.

        >>> from kgcore.graph import InMemoryGraphStore
        >>> from kgcore.methods.fasttog import FastToG
        >>> store = InMemoryGraphStore.from_triples([
        ...     ("Italy", "currency", "Euro"), ("France", "currency", "Euro")])
        >>> FastToG(store).acceptance.neighbour_answer("euro; Lira", ["Italy"])
        'Euro'
        >>> FastToG(store).acceptance.neighbour_answer("France", ["Italy"]) is None
        True
        """
        excluded = {normalize_answer(entity) for entity in topic}
        near: dict[str, str] = {}
        for by_node in self.topic_facts.links(topic):
            for node in by_node:
                key = normalize_answer(node)
                if key and key not in excluded and not self.store.is_unnamed(node):
                    near.setdefault(key, node)
        names = (near.get(normalize_answer(part)) for part in parsed.split(";"))
        found = list(dict.fromkeys(name for name in names if name))
        return "; ".join(found) or None
