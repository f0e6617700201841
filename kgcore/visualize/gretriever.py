"""The picture of a G-Retriever search: the Prize-Collecting Steiner Tree it chose.

Node size grows with the node's prize (connectors PCST bought for free are small and pale);
an edge whose prize exceeded the edge cost was a *virtual node* in the PCST problem and is
drawn as a diamond on the edge, sized by its prize; the topic entities the candidate region
grew from are dark squares; an ``answer``, when given, has a gold ring. A subgraph larger
than ``max_nodes`` keeps the topic entities and prized nodes, then their neighbours.

Example
-------
>>> from kgcore.gretriever.result import GRetrieverResult
>>> from kgcore.types import Triple
>>> result = GRetrieverResult(
...     question="who directed Cleopatra", node_ids=(0, 1),
...     node_texts=("Cleopatra", "Joseph L. Mankiewicz"),
...     edge_ids=(0,), edges=(Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),),
...     edge_endpoints=((0, 1),), node_prizes=(3.0, 0.0), edge_prizes=(5.0,), objective=7.5,
...     edge_cost=0.5, searched_nodes=2, searched_edges=1, seeds=("Cleopatra",))
>>> scene = gretriever_scene(result)
>>> [(n.name, n.shape) for n in scene.nodes]
[('Cleopatra', 's'), ('Joseph L. Mankiewicz', 'o'), ('directed_by', 'D')]
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgcore.types import Triple
from kgcore.visualize.render import DEFAULT_DPI, render
from kgcore.visualize.scene import (
    ANSWER_RING,
    CONNECTOR_COLOUR,
    TOPIC_COLOUR,
    Scene,
    answer_matches,
    check_max_nodes,
    keep_core_and_neighbours,
)

if TYPE_CHECKING:
    from kgcore.gretriever.result import GRetrieverResult

DEFAULT_MAX_NODES = 150
PRIZED_COLOUR = "#2171b5"
VIRTUAL_COLOUR = "#e6550d"
MIN_SIZE, MAX_SIZE = 120.0, 1100.0


def _size(prize: float, top: float) -> float:
    return MIN_SIZE + (MAX_SIZE - MIN_SIZE) * (prize / top if top > 0 else 0.0)


def gretriever_scene(
    result: GRetrieverResult, answer: str | None = None, max_nodes: int = DEFAULT_MAX_NODES
) -> Scene:
    """The :class:`~kgcore.visualize.scene.Scene` of a G-Retriever result (see the module)."""
    check_max_nodes(max_nodes)
    texts = dict(zip(result.node_ids, result.node_texts, strict=True))
    prizes = dict(zip(result.node_ids, result.node_prizes, strict=True))
    seeds = set(result.seeds)
    # Keys are node ids (texts may repeat in a textual graph); names are the texts.
    seed_ids = [i for i in result.node_ids if texts[i] in seeds]
    prized = [i for i in result.node_ids if prizes[i] > 0]
    core = [str(i) for i in dict.fromkeys(seed_ids + prized or list(result.node_ids[:1]))]
    links = [Triple(str(s), "", str(d)) for s, d in result.edge_endpoints]
    if len(result.node_ids) > max_nodes:
        kept = keep_core_and_neighbours(core, links, max_nodes)
        # The core alone may be larger than max_nodes: then the richest prizes win.
        if len(kept) > max_nodes:
            kept = sorted(kept, key=lambda k: (-prizes[int(k)], int(k)))[:max_nodes]
        shown = {int(k) for k in kept}
    else:
        shown = set(result.node_ids)

    top_node = max((prizes[i] for i in shown), default=0.0)
    top_edge = max(result.edge_prizes, default=0.0)
    scene = Scene(title=result.question)
    for node_id in result.node_ids:
        if node_id not in shown:
            continue
        prize = prizes[node_id]
        if texts[node_id] in seeds:
            style: dict[str, Any] = {"colour": TOPIC_COLOUR, "shape": "s", "legend": "topic entity"}
        elif prize > 0:
            style = {"colour": PRIZED_COLOUR, "legend": "node with a prize (size = prize)"}
        else:
            style = {"colour": CONNECTOR_COLOUR, "legend": "connector (no prize)"}
        scene.add_node(node_id, name=texts[node_id], size=_size(prize, top_node), **style)
    virtual = 0
    for index, ((src, dst), triple, prize) in enumerate(
        zip(result.edge_endpoints, result.edges, result.edge_prizes, strict=True)
    ):
        if src not in shown or dst not in shown:
            continue
        if prize > result.edge_cost:
            virtual += 1
            key = ("edge", index)
            scene.add_node(
                key,
                triple.relation,
                colour=VIRTUAL_COLOUR,
                shape="D",
                size=0.6 * _size(prize - result.edge_cost, top_edge),
                legend="virtual edge-node (prize > edge cost)",
            )
            scene.add_edge(src, key, colour=VIRTUAL_COLOUR, width=1.8)
            scene.add_edge(key, dst, colour=VIRTUAL_COLOUR, width=1.8)
        else:
            scene.add_edge(src, dst, label=triple.relation, width=1.4)

    if virtual > 15:  # a forest of identical relation names says nothing: keep the diamonds
        for node in scene.nodes:
            if isinstance(node.key, tuple):
                node.name = ""
    answers = answer_matches(answer, texts.values()) if answer else []
    for node in scene.nodes:
        if not isinstance(node.key, tuple) and node.name in answers:
            node.ring = ANSWER_RING
    parts = []
    if answer is not None:
        parts.append(f"answer: {answer}" + ("" if answers else " (not a node of the picture)"))
    parts.append(
        f"PCST subgraph: {result.num_nodes} nodes, {result.num_edges} edges "
        f"({virtual} virtual) of {result.searched_nodes} nodes / {result.searched_edges} "
        f"edges searched; objective {result.objective:.2f}, edge cost {result.edge_cost:.2f}"
    )
    if len(shown) < result.num_nodes:
        parts.append(f"showing {len(shown)} of {result.num_nodes} nodes")
    scene.note = "; ".join(parts)
    return scene


def draw_gretriever(
    result: GRetrieverResult,
    path: str | Path,
    *,
    answer: str | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
    figsize: tuple[float, float] | None = None,
    dpi: int = DEFAULT_DPI,
    seed: int = 0,
) -> Path:
    """Draw a G-Retriever subgraph to ``path`` (PNG, SVG, PDF, JPEG) and return the path.

    Example
    -------
    >>> import tempfile, pathlib
    >>> from kgcore.gretriever.result import GRetrieverResult
    >>> from kgcore.types import Triple
    >>> result = GRetrieverResult(
    ...     question="q", node_ids=(0, 1), node_texts=("a", "b"), edge_ids=(0,),
    ...     edges=(Triple("a", "r", "b"),), edge_endpoints=((0, 1),), node_prizes=(1.0, 0.0),
    ...     edge_prizes=(0.0,), objective=0.5, edge_cost=0.5, searched_nodes=2,
    ...     searched_edges=1)
    >>> draw_gretriever(result, pathlib.Path(tempfile.mkdtemp()) / "pcst.png").name
    'pcst.png'
    """
    scene = gretriever_scene(result, answer=answer, max_nodes=max_nodes)
    return render(scene, path, figsize=figsize, dpi=dpi, seed=seed)
