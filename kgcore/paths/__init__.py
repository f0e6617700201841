"""Relation paths on a knowledge graph: listed around a topic entity, and followed.

:mod:`kgcore.paths.walk` lists and walks them (graph reads only);
:class:`~kgcore.paths.settings.PathSettings` holds path planning's settings; the planning step
that asks a model to choose one is :mod:`kgcore.methods.kernel.path_planning`.
"""

from kgcore.paths.settings import PathSettings
from kgcore.paths.walk import (
    FollowedPath,
    Hop,
    RelationPath,
    follow_path,
    order_answers,
    relation_paths,
)

__all__ = [
    "FollowedPath",
    "Hop",
    "PathSettings",
    "RelationPath",
    "follow_path",
    "order_answers",
    "relation_paths",
]
