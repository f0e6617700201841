"""Path planning, read from the question down: :mod:`~kgcore.paths.question_chain` reads a
question as a chain of relation phrases, :mod:`~kgcore.paths.walk` lists and walks the relation
paths around a topic entity (graph reads only), :mod:`~kgcore.paths.ranking` scores them
against the question, and :mod:`~kgcore.paths.reading` follows the best ones and reads the
answer set a model's reply names. :class:`~kgcore.paths.settings.PathSettings` holds its one
setting; FastToG's part that uses it is :mod:`kgcore.methods.fasttog.path_planning`.
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
