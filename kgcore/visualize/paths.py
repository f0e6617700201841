"""The picture of a path-exploring run (ToG, CGPE): the paths it kept, depth by depth.

Drawn in FastToG's style: topic entities as dark squares, each path in its own colour with
each node's depth written inside, candidates the method dropped faded grey, the answer with
a gold ring, the question as the title. The engines record what this needs in
``result.extra``: ``topic_entities`` and ``explored``, one entry per depth with the ``kept``
and (some of) the ``pruned`` candidate triples, as ``[head, relation, tail]`` lists, so a
result read back from a JSONL trace draws the same picture.

Example
-------
>>> from kgcore.methods.result import MethodResult
>>> result = MethodResult(question="who directed [Cleopatra]", answer="Mankiewicz",
...                       method="tog")
>>> result.extra.update(topic_entities=["Cleopatra"], explored=[{
...     "depth": 1, "kept": [["Cleopatra", "directed_by", "Mankiewicz"]],
...     "pruned": [["Cleopatra", "has_genre", "Drama"]]}])
>>> scene = paths_scene(result)
>>> [(n.name, n.badge, n.alpha < 1, n.ring is not None) for n in scene.nodes]
[('Cleopatra', '', False, False), ('Mankiewicz', '1', False, True), ('Drama', '', True, False)]
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgcore.types import Triple
from kgcore.visualize.render import DEFAULT_DPI, render
from kgcore.visualize.scene import (
    ANSWER_RING,
    PRUNED_ALPHA,
    PRUNED_COLOUR,
    TOPIC_COLOUR,
    NothingToDrawError,
    Scene,
    answer_matches,
    chain_colour,
    check_max_nodes,
    keep_core_and_neighbours,
)

if TYPE_CHECKING:
    from kgcore.methods.result import MethodResult

DEFAULT_MAX_NODES = 120


def _triples(items: Any) -> list[Triple]:
    """The well-formed ``[head, relation, tail]`` items of a recorded list (others skipped)."""
    if not isinstance(items, list | tuple):
        return []
    return [
        Triple(*item)
        for item in items
        if isinstance(item, list | tuple)
        and len(item) == 3
        and all(isinstance(part, str) for part in item)
    ]


def explored_levels(extra: Mapping[str, Any]) -> list[tuple[int, list[Triple], list[Triple]]]:
    """``(depth, kept, pruned)`` per recorded depth, in depth order.

    Example
    -------
    >>> explored_levels({"explored": [{"depth": 1, "kept": [["a", "r", "b"]], "pruned": []}]})
    [(1, [Triple(head='a', relation='r', tail='b')], [])]
    """
    levels = []
    for entry in extra.get("explored") or []:
        if not isinstance(entry, Mapping):
            continue
        depth = entry.get("depth")
        if isinstance(depth, int) and not isinstance(depth, bool):
            levels.append((depth, _triples(entry.get("kept")), _triples(entry.get("pruned"))))
    return sorted(levels, key=lambda level: level[0])


def paths_scene(result: MethodResult, max_nodes: int = DEFAULT_MAX_NODES) -> Scene:
    """The :class:`~kgcore.visualize.scene.Scene` of a ToG or CGPE result (see the module).

    Raises :class:`~kgcore.visualize.scene.NothingToDrawError` for a result that recorded
    no exploration (IO, CoT, or a result from before the record existed).
    """
    check_max_nodes(max_nodes)
    if "explored" not in result.extra:
        raise NothingToDrawError(
            f"the {result.method!r} result records no explored paths "
            "(only ToG and CGPE results carry extra['explored'])"
        )
    topic = [t for t in result.extra.get("topic_entities") or [] if isinstance(t, str)]
    levels = explored_levels(result.extra)

    # Each kept triple extends the path that reached its known end; a node's first child
    # continues its path (same colour), further children branch into new paths.
    depth_of: dict[str, int] = {name: 0 for name in topic}
    path_of: dict[str, int] = {}
    passed_on: set[str] = set()
    paths = 0
    kept_edges: list[tuple[Triple, int]] = []
    for depth, kept, _ in levels:
        for triple in kept:
            ends = [e for e in (triple.head, triple.tail) if e in depth_of]
            parent = min(ends, key=lambda e: depth_of[e]) if ends else triple.head
            depth_of.setdefault(parent, max(depth - 1, 0))
            child = triple.other(parent)
            if parent in path_of and parent not in passed_on:
                path = path_of[parent]
            else:
                path, paths = paths, paths + 1
            passed_on.add(parent)
            if child not in depth_of:
                depth_of[child] = depth
                path_of[child] = path
            kept_edges.append((triple, path_of.get(child, path)))
    pruned = [(depth, t) for depth, _, dropped in levels for t in dropped]
    core = list(depth_of)
    everything = list(dict.fromkeys(core + [end for _, t in pruned for end in (t.head, t.tail)]))
    all_triples = [t for t, _ in kept_edges] + [t for _, t in pruned]
    shown = set(everything)
    if len(everything) > max_nodes:
        shown = set(keep_core_and_neighbours(core, all_triples, max_nodes))

    scene = Scene(title=result.question)
    for name in topic:
        scene.add_node(name, colour=TOPIC_COLOUR, shape="s", size=460, legend="topic entity")
    for name, depth in depth_of.items():
        on_path = path_of.get(name)
        if on_path is None:
            scene.add_node(name, colour=TOPIC_COLOUR, shape="s", size=460, legend="topic entity")
            continue
        scene.add_node(
            name,
            colour=chain_colour(on_path),
            size=420,
            badge=str(depth),
            layer=depth,
            legend=f"path {on_path + 1}",
        )
    for depth, triple in pruned:
        for end in (triple.head, triple.tail):
            if end in shown:
                scene.add_node(
                    end,
                    colour=PRUNED_COLOUR,
                    alpha=PRUNED_ALPHA,
                    size=200,
                    layer=depth,
                    legend="dropped candidate",
                )
    drawn: set[Triple] = set()
    for triple, path in kept_edges:
        if triple not in drawn:
            drawn.add(triple)
            scene.add_edge(
                triple.head,
                triple.tail,
                label=triple.relation,
                colour=chain_colour(path),
                width=2.4,
            )
    for _, triple in pruned:
        if triple in drawn or triple.head not in shown or triple.tail not in shown:
            continue
        drawn.add(triple)
        scene.add_edge(
            triple.head, triple.tail, label=triple.relation, alpha=PRUNED_ALPHA, dashed=True
        )

    answers = answer_matches(result.answer, [n.name for n in scene.nodes])
    for node in scene.nodes:
        if node.name in answers:
            node.ring = ANSWER_RING
    parts = [f"{result.method}: answer {result.answer}"]
    if result.fell_back:
        parts[0] += " (by the fallback, not from the graph)"
    if not answers:
        parts[0] += " (not a node of the picture)"
    parts.append(f"depth {result.depth}; {paths} path(s); LLM calls {result.llm_calls}")
    clues = result.extra.get("clues")
    if isinstance(clues, list) and clues:
        parts.append("clues: " + ", ".join(str(c) for c in clues[:8]))
    if len(scene.nodes) < len(everything):
        parts.append(f"showing {len(scene.nodes)} of {len(everything)} nodes")
    scene.note = "; ".join(parts)
    return scene


def draw_paths(
    result: MethodResult,
    path: str | Path,
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
    figsize: tuple[float, float] | None = None,
    dpi: int = DEFAULT_DPI,
    seed: int = 0,
) -> Path:
    """Draw a ToG or CGPE result's explored paths to ``path`` and return the path.

    Example
    -------
    >>> import tempfile, pathlib
    >>> from kgcore.methods.result import MethodResult
    >>> result = MethodResult(question="q", answer="b", method="tog")
    >>> result.extra.update(topic_entities=["a"], explored=[
    ...     {"depth": 1, "kept": [["a", "r", "b"]], "pruned": []}])
    >>> draw_paths(result, pathlib.Path(tempfile.mkdtemp()) / "paths.png").name
    'paths.png'
    """
    scene = paths_scene(result, max_nodes=max_nodes)
    return render(scene, path, figsize=figsize, dpi=dpi, seed=seed)
