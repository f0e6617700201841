"""The picture of a FastToG run: the chains of communities it reasoned over.

The topic entities are dark squares; each chain's communities take the chain's colour with
their depth written inside; candidate communities the LLM pruned are faded grey; the answer
has a gold ring; the question is the title. A result larger than ``max_nodes`` keeps the
topic entities, the chains and as many of their neighbours as fit.

Example
-------
>>> from kgcore.methods.fasttog.result import ChainCommunity, FastToGResult
>>> from kgcore.types import Triple
>>> link = Triple("Cleopatra", "directed_by", "J. L. Mankiewicz")
>>> result = FastToGResult(
...     question="who directed [Cleopatra]", answer="J. L. Mankiewicz", method="fasttog",
...     topic_entities=["Cleopatra"],
...     start=ChainCommunity(-1, 0, ("Cleopatra",), (), (), "Cleopatra."),
...     chains=[[ChainCommunity(0, 1, ("J. L. Mankiewicz",), (), (link,), "...")]])
>>> scene = fasttog_scene(result)
>>> [(n.name, n.badge, n.ring is not None) for n in scene.nodes]
[('Cleopatra', '', False), ('J. L. Mankiewicz', '1', True)]
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kgcore.types import Triple
from kgcore.visualize.render import DEFAULT_DPI, render
from kgcore.visualize.scene import (
    ANSWER_RING,
    PRUNED_ALPHA,
    PRUNED_COLOUR,
    TOPIC_COLOUR,
    Scene,
    answer_matches,
    chain_colour,
    check_max_nodes,
    keep_core_and_neighbours,
)

if TYPE_CHECKING:
    from kgcore.methods.fasttog.result import ChainCommunity, FastToGResult

DEFAULT_MAX_NODES = 120


def _summary(result: FastToGResult, shown: int, total: int, answer_drawn: bool) -> str:
    parts = [f"answer: {result.answer}"]
    if result.fell_back:
        parts[0] += " (by the fallback, not from the graph)"
    if not answer_drawn:
        parts[0] += " (not a node of the picture)"
    parts.append(f"depth {result.depth}")
    parts.append(f"{len(result.chains)} chain(s)")
    parts.append(f"LLM calls {result.llm_calls}")
    if result.prompt_tokens is not None:
        parts.append(f"tokens {result.prompt_tokens} in / {result.completion_tokens} out")
    if shown < total:
        parts.append(f"showing {shown} of {total} nodes (chains and their neighbours)")
    return "; ".join(parts)


def fasttog_scene(result: FastToGResult, max_nodes: int = DEFAULT_MAX_NODES) -> Scene:
    """The :class:`~kgcore.visualize.scene.Scene` of a FastToG result (see the module)."""
    check_max_nodes(max_nodes)
    topic = list(result.start.nodes) if result.start else list(result.topic_entities)
    chains: list[list[ChainCommunity]] = result.chains
    pruned: list[ChainCommunity] = list(getattr(result, "pruned", []))
    triples: list[Triple] = list(result.start.triples) if result.start else []
    for community in [c for chain in chains for c in chain] + pruned:
        triples += community.links + community.triples
    everything = list(
        dict.fromkeys(
            topic
            + [n for chain in chains for c in chain for n in c.nodes]
            + [n for c in pruned for n in c.nodes]
            + [end for t in triples for end in (t.head, t.tail)]
        )
    )
    core = list(dict.fromkeys(topic + [n for chain in chains for c in chain for n in c.nodes]))
    shown = set(keep_core_and_neighbours(core, triples, max_nodes))
    if len(everything) <= max_nodes:
        shown = set(everything)

    scene = Scene(title=result.question)
    for name in topic:
        scene.add_node(name, colour=TOPIC_COLOUR, shape="s", size=460, legend="topic entity")
    for index, chain in enumerate(chains):
        for community in chain:
            for name in community.nodes:
                scene.add_node(
                    name,
                    colour=chain_colour(index),
                    size=420,
                    badge=str(community.depth),
                    layer=community.depth,
                    legend=f"chain {index + 1}",
                )
    for community in pruned:
        for name in community.nodes:
            if name in shown:
                scene.add_node(
                    name,
                    colour=PRUNED_COLOUR,
                    alpha=PRUNED_ALPHA,
                    size=220,
                    layer=community.depth,
                    legend="pruned candidate",
                )
    # Endpoints of linking triples that no community lists (rare) join as plain neighbours.
    for triple in triples:
        for end in (triple.head, triple.tail):
            if end in shown:
                scene.add_node(end, colour=PRUNED_COLOUR, alpha=PRUNED_ALPHA, size=160)

    drawn: set[Triple] = set()

    def add(triples_: tuple[Triple, ...], **style: object) -> None:
        for triple in triples_:
            if triple in drawn or scene.node(triple.head) is None:
                continue
            if scene.node(triple.tail) is None:
                continue
            drawn.add(triple)
            scene.add_edge(triple.head, triple.tail, label=triple.relation, **style)

    if result.start:
        add(result.start.triples, colour=TOPIC_COLOUR, width=2.0)
    for index, chain in enumerate(chains):
        for community in chain:
            add(community.links + community.triples, colour=chain_colour(index), width=2.4)
    for community in pruned:
        add(community.links + community.triples, alpha=PRUNED_ALPHA, dashed=True)

    answers = answer_matches(result.answer, [n.name for n in scene.nodes])
    for node in scene.nodes:
        if node.name in answers:
            node.ring = ANSWER_RING
    scene.note = _summary(result, len(scene.nodes), len(everything), bool(answers))
    return scene


def draw_fasttog(
    result: FastToGResult,
    path: str | Path,
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
    figsize: tuple[float, float] | None = None,
    dpi: int = DEFAULT_DPI,
    seed: int = 0,
) -> Path:
    """Draw a FastToG result's chains to ``path`` (PNG, SVG, PDF, JPEG) and return the path.

    Example
    -------
    >>> import tempfile, pathlib
    >>> from kgcore.methods.fasttog.result import FastToGResult
    >>> result = FastToGResult(question="q", answer="a", method="fasttog", topic_entities=["a"])
    >>> draw_fasttog(result, pathlib.Path(tempfile.mkdtemp()) / "chain.png").name
    'chain.png'
    """
    scene = fasttog_scene(result, max_nodes=max_nodes)
    return render(scene, path, figsize=figsize, dpi=dpi, seed=seed)
