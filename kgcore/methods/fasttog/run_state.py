"""The state of one FastToG run, shared by the engine's phases and its parts."""

from __future__ import annotations

import dataclasses

from kgcore.community.lcs import LCSStep
from kgcore.methods.fasttog.result import ChainCommunity, FastToGResult
from kgcore.methods.kernel import RunMeter
from kgcore.paths import FollowedPath


@dataclasses.dataclass
class FastToGRun:
    """The state of one FastToG run (:meth:`~kgcore.methods.fasttog.engine.FastToG.steps`).

    ``topic`` holds the linked topic entities (graph nodes), ``topics`` the names that are no
    answer (those and the question's bracketed ones); ``start_text`` the start community's
    text; ``path`` the followed relation paths as facts and ``followed`` the paths themselves
    (path planning); ``history`` the nodes on the start community or a chain; ``active``
    whether each chain may still grow; ``ahead`` the Local Community Search steps run as the
    chains' last communities joined (``leaves.kept`` above 0).
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
