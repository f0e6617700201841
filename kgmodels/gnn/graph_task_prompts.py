"""The graph-only MetaQA task's splits as labelled graph prompts, the graph text left out.

The examples are built by :mod:`kgmodels.gnn.graph_task` from ``<data>/metaqa/kb.txt``
(the data folder of :func:`kgeval.datasets.default_data_dir`); this module embeds
them as :func:`kgmodels.gnn.explagraphs.prompts_from_examples` does for ExplaGraphs.

Example
-------
>>> test = load_graph_task_prompts("test")            # doctest: +SKIP
>>> test[0].prompt.text, test[0].label                # doctest: +SKIP
('', 'yes')
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from kgcore.exceptions import ConfigurationError
from kgeval.datasets import default_data_dir

if TYPE_CHECKING:
    from kgcore.embeddings import TextEmbedder
    from kgmodels.gnn.explagraphs import LabelledPrompt

__all__ = ["load_graph_task_prompts"]


def load_graph_task_prompts(
    split: str,
    data_dir: str | Path | None = None,
    relation: str = "directed_by",
    edges: int = 6,
    seed: int = 0,
    sizes: tuple[int, int, int] | None = None,
    embedder: TextEmbedder | None = None,
    cache_dir: str | Path | None = "default",
) -> list[LabelledPrompt]:
    """One split of the task as labelled graph prompts, the graph text left out.

    ``sizes`` are the train, validation and test movie counts (default
    :data:`~kgmodels.gnn.graph_task.DEFAULT_SIZES`: 1,200 / 200 / 400).

    Example
    -------
    >>> test = load_graph_task_prompts("test")            # doctest: +SKIP
    >>> test[0].prompt.text, test[0].label                # doctest: +SKIP
    ('', 'yes')
    """
    from kgmodels.gnn.explagraphs import prompts_from_examples
    from kgmodels.gnn.graph_task import (
        DEFAULT_SIZES,
        graph_task_examples,
        movie_facts,
        split_examples,
    )

    sizes = DEFAULT_SIZES if sizes is None else sizes
    if split not in ("train", "val", "test"):
        raise ConfigurationError(f"unknown split {split!r}; expected train, val or test")
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    kb = root / "metaqa" / "kb.txt"
    if not kb.is_file():
        raise ConfigurationError(f"MetaQA knowledge base not found: {kb}")
    examples = graph_task_examples(movie_facts(kb), relation, edges, seed, limit=sum(sizes))
    chosen = split_examples(examples, sizes)[split]
    prompts = prompts_from_examples(chosen, embedder, cache_dir)
    return [replace(p, prompt=replace(p.prompt, text="")) for p in prompts]
