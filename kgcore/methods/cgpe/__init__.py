"""Clue-Guided Path Exploration (CGPE, Tao et al. 2024): the question's clues steer a walk
on the graph (see :mod:`kgcore.methods.cgpe.engine` for the algorithm).

- :mod:`~kgcore.methods.cgpe.prompts`: the prompt templates and reminders;
- :mod:`~kgcore.methods.cgpe.config`: :class:`CGPEConfig`, every setting, checked;
- :mod:`~kgcore.methods.cgpe.parsing`: clue matching by characters, clue-match replies;
- :mod:`~kgcore.methods.cgpe.clue_paths`: :class:`CluePath`, the candidate steps, node types;
- :mod:`~kgcore.methods.cgpe.information_matching`: the three-step information matching;
- :mod:`~kgcore.methods.cgpe.engine`: :class:`CGPE`, the step generator.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> CGPE(InMemoryGraphStore.from_triples([("a", "r", "b")])).max_depth
3
"""

from kgcore.methods.cgpe.clue_paths import CluePath, graph_type_of
from kgcore.methods.cgpe.config import CGPEConfig
from kgcore.methods.cgpe.engine import CGPE
from kgcore.methods.cgpe.parsing import char_match, parse_clue_matches

__all__ = ["CGPE", "CGPEConfig", "CluePath", "char_match", "graph_type_of", "parse_clue_matches"]
