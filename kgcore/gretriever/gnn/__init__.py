"""G-Retriever's generation: a GNN graph prompt (soft token) in front of a frozen LLM.

Built on PyG's ``torch_geometric.llm.models.GRetriever``: the retrieved subgraph becomes a PyG
``Data`` (sentence-embedding features), a GAT or Graph Transformer encodes it, mean pooling and
an MLP projector give the graph token(s), and the frozen LLM answers. Modes: ``inference``
(text only), ``prompt`` (prompt tuning) and ``lora`` (prompt tuning plus LoRA adapters).

Example
-------
>>> from kgcore.gretriever.gnn import GNNConfig, GraphPromptConfig
>>> GraphPromptConfig(mode="prompt", gnn=GNNConfig.preset("cpu")).gnn.hidden_channels
256
"""

from kgcore.gretriever.gnn.encoders import GNN_KINDS, GNNConfig, GraphTransformer, build_gnn
from kgcore.gretriever.gnn.graph_data import (
    VectorLookup,
    graph_text,
    make_data,
    result_to_data,
    textual_graph_to_data,
)
from kgcore.gretriever.gnn.labels import UNPARSEABLE, parse_label
from kgcore.gretriever.gnn.local_llm import convert_gguf_to_hf, resolve_llm_path
from kgcore.gretriever.gnn.model import (
    LORA_ALPHA,
    LORA_R,
    MODES,
    PAPER_LLM,
    GraphPrompt,
    GraphPromptConfig,
    GraphPromptModel,
    load_model,
    read_checkpoint_config,
)

__all__ = [
    "GNN_KINDS",
    "LORA_ALPHA",
    "LORA_R",
    "MODES",
    "PAPER_LLM",
    "UNPARSEABLE",
    "GNNConfig",
    "GraphPrompt",
    "GraphPromptConfig",
    "GraphPromptModel",
    "GraphTransformer",
    "VectorLookup",
    "build_gnn",
    "convert_gguf_to_hf",
    "graph_text",
    "load_model",
    "make_data",
    "parse_label",
    "read_checkpoint_config",
    "resolve_llm_path",
    "result_to_data",
    "textual_graph_to_data",
]
