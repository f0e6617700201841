"""Pictures of what a method did: FastToG's chains, G-Retriever's subgraph, ToG/CGPE paths.

Each result type builds a :class:`Scene` (nodes and edges with their style, no drawing
library needed) and :func:`render` draws it with networkx and matplotlib (the ``visualize``
extra). Result objects have thin ``draw(path)`` methods over these functions.

Example
-------
>>> import tempfile, pathlib
>>> from kgcore.methods.result import MethodResult
>>> result = MethodResult(question="who directed [Cleopatra]", answer="Mankiewicz", method="tog")
>>> result.extra.update(topic_entities=["Cleopatra"], explored=[
...     {"depth": 1, "kept": [["Cleopatra", "directed_by", "Mankiewicz"]], "pruned": []}])
>>> draw_paths(result, pathlib.Path(tempfile.mkdtemp()) / "tog.png").suffix
'.png'
"""

from kgcore.visualize.fasttog import draw_fasttog, fasttog_scene
from kgcore.visualize.gretriever import draw_gretriever, gretriever_scene
from kgcore.visualize.paths import draw_paths, paths_scene
from kgcore.visualize.render import render
from kgcore.visualize.scene import DrawingError, NothingToDrawError, Scene, SceneEdge, SceneNode

__all__ = [
    "DrawingError",
    "NothingToDrawError",
    "Scene",
    "SceneEdge",
    "SceneNode",
    "draw_fasttog",
    "draw_gretriever",
    "draw_paths",
    "fasttog_scene",
    "gretriever_scene",
    "paths_scene",
    "render",
]
