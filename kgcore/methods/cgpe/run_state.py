"""The state of one CGPE run, shared by the engine's phases and information matching."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kgcore.methods.cgpe.clue_paths import CluePath
from kgcore.methods.kernel import RunMeter, StepTrace


@dataclass
class MatchStats:
    """How the clues were matched: by characters (no call), and the calls of each step of
    information matching."""

    char_matches: int = 0
    step_calls: list[int] = field(default_factory=lambda: [0, 0, 0])


@dataclass
class CGPERun:
    """The state of one CGPE run (:meth:`~kgcore.methods.cgpe.engine.CGPE.steps`).

    ``used`` holds the clues matched so far, ``starts`` the initial points, ``leaves`` the
    paths explored (those that stopped growing, then the last grown), ``explored`` what each
    depth kept and dropped (for pictures), ``depth`` the depths explored.
    """

    question: str
    meter: RunMeter
    rng: np.random.Generator
    stats: MatchStats = field(default_factory=MatchStats)
    trace: StepTrace = field(default_factory=StepTrace)  # every LLM step, offered and read
    clues: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    starts: list[str] = field(default_factory=list)
    leaves: list[CluePath] = field(default_factory=list)
    explored: list[dict[str, object]] = field(default_factory=list)
    depth: int = 0
