"""Path planning's settings (:class:`PathSettings`), nested in a method's config."""

from __future__ import annotations

from dataclasses import dataclass

from kgcore.settings import Settings, checked_settings

#: name -> (minimum, maximum) of :class:`PathSettings`.
PATH_LIMITS: dict[str, tuple[float, float]] = {
    "max_hops": (0, 4),
    "offered": (1, 20),
    "beam": (1, 1000),
    "max_frontier": (1, 1000),
    "max_fanout": (1, 5000),
    "max_answers": (1, 200),
    "max_facts": (1, 200),
    "coverage": (0.0, 5.0),
    "coverage_relations": (1, 10_000),
    "hop_cost": (0.0, 1.0),
    "named_hop_cost": (0.0, 1.0),
}


#: How a method uses the paths (:attr:`PathSettings.mode`).
PATH_MODES = ("read", "choose")
#: Who answers a question read as a chain of relations (:attr:`PathSettings.chain_answer`).
CHAIN_ANSWERS = ("graph", "model")


@checked_settings(
    "path planning",
    limits=PATH_LIMITS,
    choices={"mode": PATH_MODES, "chain_answer": CHAIN_ANSWERS},
)
@dataclass(frozen=True)
class PathSettings(Settings):
    """How a method plans a relation path and follows it on the graph
    (:mod:`kgcore.methods.kernel.path_planning`).

    Parameters
    ----------
    mode : {"read", "choose"}
        ``"read"``: the ``offered`` paths, followed, join the facts the method's reasoning
        step reads, and the path that reaches the answer the model names gives the answer set
        (no call of its own); ``"choose"``: one call in which the model chooses a path by
        number, and its end nodes answer.
    max_hops : int
        The longest relation path offered; ``0`` turns path planning off.
    offered : int
        Relation paths shown to the model, the closest to the question first.
    beam : int
        At each hop, only the ``beam`` paths closest to the question are walked on further.
    max_frontier : int
        Nodes of each path walked on per hop while the paths are listed.
    max_fanout : int
        Nodes walked on per hop when the chosen path is followed.
    max_answers : int
        The chosen path answers when it reaches between 1 and this many nodes; with more, its
        facts join the method's context and the method goes on.
    max_facts : int
        Facts of the followed path kept as its evidence.
    chain_answer : {"graph", "model"}
        A question read as a chain of relation phrases whose best path is aligned with them
        hop by hop (``"read"`` mode): ``"graph"`` answers with the nodes that path reaches
        (between 1 and ``max_answers``), with no LLM call; ``"model"`` shows the path alone to
        the model, whose answer must be one of them. Otherwise the method goes on with the
        path's facts.
    coverage : float
        The weight, in ranking paths for a question not read as a chain, of how well the
        path's relations match those the question names (their F1); ``0`` (the default) turns
        it off: its better rankings on MetaQA did not turn into more answers with the local
        model (``docs/research/path_planning.md``, "Relation coverage").
    coverage_relations : int
        The coverage term applies only when the listed paths hold at most this many distinct
        relation names: with a few relations named as a question says them (MetaQA's),
        a question's words name the right ones; among many (Freebase's), common words name
        some relation by chance.
    hop_cost : float
        Ranking a question not read as a chain: a path loses this much for each hop past
        the first, so a short path that says what the question asks is not passed over for a
        longer one that only resembles it; ``0`` turns it off.
    named_hop_cost : float
        Ranking a question not read as a chain, when the listed paths hold at most
        ``coverage_relations`` relation names (as for ``coverage``): a path loses this much
        for each hop past the first whose relation the question does not name (no word of it
        is close to the relation's name), so a long path the question spells out ("the films
        directed by the director of [X]") keeps its place and one that wanders off loses it.
        Among more relation names (Freebase's), where common words name some relation by
        chance, it does nothing; ``0`` turns it off.
    read_alone : bool
        ``"read"`` mode, a question not read as a chain: the model first reads the offered
        paths alone, without the start community (one call); a node a path reaches is the
        answer, anything else lets the method go on with the paths' facts in its start
        community.

    Example
    -------
    >>> PathSettings().max_hops, PathSettings(max_hops=0).enabled
    (3, False)
    """

    mode: str = "read"
    max_hops: int = 3
    offered: int = 3
    beam: int = 12
    max_frontier: int = 50
    max_fanout: int = 300
    max_answers: int = 40
    max_facts: int = 9
    chain_answer: str = "graph"
    coverage: float = 0.0
    coverage_relations: int = 12
    hop_cost: float = 0.0
    named_hop_cost: float = 0.2
    read_alone: bool = False

    @property
    def enabled(self) -> bool:
        """Whether paths are planned at all."""
        return self.max_hops > 0
