"""ExplaGraphs rows as labelled graph prompts for G-Retriever's GNN (training and evaluation).

The rows come from :func:`kgeval.datasets.load_explagraphs`; the prompts are built
by :func:`kgmodels.gnn.explagraphs.prompts_from_examples` (PyTorch is imported when a
split is loaded, not before).

Example
-------
>>> examples = load_explagraph_prompts("val", limit=2)      # doctest: +SKIP
>>> examples[0].label, examples[0].prompt.data.x.shape[1]   # doctest: +SKIP
('counter', 384)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kgeval.datasets import load_explagraphs

if TYPE_CHECKING:
    from kgcore.embeddings import TextEmbedder
    from kgmodels.gnn.explagraphs import LabelledPrompt

__all__ = ["load_explagraph_prompts"]


def load_explagraph_prompts(
    split: str,
    limit: int | None = None,
    embedder: TextEmbedder | None = None,
    data_dir: str | Path | None = None,
    cache_dir: str | Path | None = "default",
) -> list[LabelledPrompt]:
    """The split's rows (the first ``limit``) as labelled graph prompts."""
    from kgmodels.gnn.explagraphs import prompts_from_examples

    dataset = load_explagraphs(split, limit, data_dir)
    return prompts_from_examples(dataset.examples, embedder, cache_dir)
