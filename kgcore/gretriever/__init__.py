"""G-Retriever (He et al., 2024) on the shared core: embed, prize, solve PCST, textualize.

Example
-------
>>> from kgcore.gretriever import GRetriever
>>> retriever = GRetriever.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])
... # doctest: +SKIP
"""

from kgcore.embeddings import SentenceTransformerEmbedder, TextEmbedder, normalize_rows
from kgcore.gretriever.index import EmbeddedTexts, GraphIndex, default_cache_dir
from kgcore.gretriever.pcst import PCSTProblem, PCSTSolution, build_pcst_problem, solve_pcst
from kgcore.gretriever.prizes import edge_prizes, node_prizes
from kgcore.gretriever.region import Region, expand_region
from kgcore.gretriever.result import GRetrieverResult
from kgcore.gretriever.retriever import (
    GRetriever,
    PCSTSettings,
    RegionSettings,
    retrieve_in_graph,
)
from kgcore.gretriever.textgraph import TextualGraph
from kgcore.gretriever.textualize import textualize_paper, textualize_triples
from kgcore.linking import link_entities

__all__ = [
    "EmbeddedTexts",
    "GRetriever",
    "GRetrieverResult",
    "GraphIndex",
    "PCSTProblem",
    "PCSTSettings",
    "PCSTSolution",
    "Region",
    "RegionSettings",
    "SentenceTransformerEmbedder",
    "TextEmbedder",
    "TextualGraph",
    "build_pcst_problem",
    "default_cache_dir",
    "edge_prizes",
    "expand_region",
    "link_entities",
    "node_prizes",
    "normalize_rows",
    "retrieve_in_graph",
    "solve_pcst",
    "textualize_paper",
    "textualize_triples",
]
