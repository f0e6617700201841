"""ExplaGraphs as graph prompts: each row's whole graph, its text, the question and the label.

The rows and the split are the ones :func:`kgeval.datasets.load_explagraphs` reads
(G-Retriever's split: 1,659 / 553 / 554);
:func:`kgmodels.gnn.explagraph_prompts.load_explagraph_prompts` turns them into prompts
with :func:`prompts_from_examples`. As in the paper, each row's small graph is used whole. Node
and relation texts are embedded once and cached in ``gretriever-gnn`` under the user cache
(:func:`~kglocal.locations.user_cache_dir`; keyed by the texts and the model), so a second
run starts at once.

Example
-------
>>> seeded_subset(["a", "b", "c", "d"], 2, seed=0) == seeded_subset(["a", "b", "c", "d"], 2, 0)
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

from kgcore.embeddings import SentenceTransformerEmbedder, TextEmbedder
from kgcore.exceptions import ConfigurationError
from kgcore.gretriever.gnn.graph_data import VectorLookup, graph_text, textual_graph_to_data
from kgcore.gretriever.gnn.model import GraphPrompt
from kgcore.gretriever.index import EmbeddedTexts
from kgcore.gretriever.textgraph import TextualGraph
from kgcore.types import Triple
from kglocal.locations import user_cache_dir

T = TypeVar("T")


class GraphExample(Protocol):
    """A question with its own graph and gold answers (such as
    :class:`kgeval.EvalExample`; this module does not import the evaluation)."""

    @property
    def id(self) -> str: ...

    @property
    def question(self) -> str: ...

    @property
    def answers(self) -> tuple[str, ...]: ...

    @property
    def triples(self) -> tuple[Triple, ...] | None: ...


@dataclass(frozen=True)
class LabelledPrompt:
    """A graph prompt with its gold label."""

    id: str
    prompt: GraphPrompt
    label: str


def _cache_path(texts: Sequence[str], model_id: str, cache_dir: Path) -> Path:
    digest = hashlib.sha256("\x00".join([model_id, *texts]).encode()).hexdigest()[:24]
    return cache_dir / f"texts-{digest}.npz"


def cached_lookup(
    texts: Sequence[str], embedder: TextEmbedder, cache_dir: str | Path | None = "default"
) -> VectorLookup:
    """A :class:`VectorLookup` holding ``texts``' vectors, read from or written to the cache."""
    unique = sorted(set(texts))
    if cache_dir is None:
        return VectorLookup(embedder, [EmbeddedTexts.embed(unique, embedder)])
    root = user_cache_dir() / "gretriever-gnn" if cache_dir == "default" else Path(cache_dir)
    path = _cache_path(unique, embedder.model_id, root)
    if path.is_file():
        with np.load(path, allow_pickle=False) as stored:
            vectors = stored["vectors"]
        if vectors.shape[0] == len(unique):
            return VectorLookup(embedder, [EmbeddedTexts.from_vectors(unique, vectors)])
    table = EmbeddedTexts.embed(unique, embedder, progress=False)
    root.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez(tmp, vectors=table.vectors[table.rows])
    tmp.replace(path)
    return VectorLookup(embedder, [table])


def example_graph(example: GraphExample) -> TextualGraph:
    """The example's own graph (ExplaGraphs rows carry their triples)."""
    if not example.triples:
        raise ConfigurationError(f"example {example.id} has no graph")
    return TextualGraph.from_triples(example.triples)


def prompts_from_examples(
    examples: Sequence[GraphExample],
    embedder: TextEmbedder | None = None,
    cache_dir: str | Path | None = "default",
) -> list[LabelledPrompt]:
    """Graph prompts (text, ``Data``) of examples carrying their own triples."""
    embedder = embedder if embedder is not None else SentenceTransformerEmbedder()
    graphs = [example_graph(e) for e in examples]
    texts = [t for g in graphs for t in (*g.node_texts, *g.edge_relations)]
    lookup = cached_lookup(texts, embedder, cache_dir)
    return [
        LabelledPrompt(
            id=example.id,
            prompt=GraphPrompt(
                question=example.question,
                text=graph_text(graph),
                data=textual_graph_to_data(graph, lookup),
            ),
            label=example.answers[0],
        )
        for example, graph in zip(examples, graphs, strict=True)
    ]


def seeded_subset(items: Sequence[T], size: int | None, seed: int) -> list[T]:
    """``size`` items drawn without replacement by a seeded generator, in their original order.

    Example
    -------
    >>> seeded_subset(list(range(10)), 3, seed=0) == seeded_subset(list(range(10)), 3, seed=0)
    True
    """
    if size is None or size >= len(items):
        return list(items)
    if size < 0:
        raise ConfigurationError(f"a subset size must be >= 0, got {size}")
    chosen = np.sort(np.random.default_rng(seed).choice(len(items), size=size, replace=False))
    return [items[i] for i in chosen]
