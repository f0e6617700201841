"""G-Retriever for LlamaIndex: a retriever, a property-graph sub-retriever, agent tools (G-Retriever
and the kgcore methods) and a local LLM helper; FastToG, ToG and CGPE as retrievers, query
engines and tools.

Example
-------
>>> from llamaindex_gretriever import GRetrieverRetriever, build_llamacpp_llm, graph_query_engine
>>> retriever = GRetrieverRetriever.from_triples(triples)                  # doctest: +SKIP
>>> engine = graph_query_engine(retriever, llm=build_llamacpp_llm())      # doctest: +SKIP
"""

from llamaindex_gretriever.agent_tools import gretriever_tool, method_tool
from llamaindex_gretriever.embeddings import LlamaIndexEmbedder
from llamaindex_gretriever.gnn import GraphPromptSynthesizer, graph_prompt_query_engine
from llamaindex_gretriever.llm import (
    build_llamacpp_llm,
    chatml_completion_to_prompt,
    chatml_messages_to_prompt,
)
from llamaindex_gretriever.method_llm import LlamaIndexChatLLM
from llamaindex_gretriever.method_retrievers import (
    CGPERetriever,
    FastToGRetriever,
    KGMethodQueryEngine,
    KGMethodRetriever,
    ToGRetriever,
    evidence_nodes,
)
from llamaindex_gretriever.prompts import graph_query_engine
from llamaindex_gretriever.property_graph import GRetrieverPGRetriever, read_property_graph
from llamaindex_gretriever.retriever import GRetrieverRetriever, result_to_node
from llamaindex_gretriever.tools import graph2text_tool

__all__ = [
    "CGPERetriever",
    "FastToGRetriever",
    "GRetrieverPGRetriever",
    "GRetrieverRetriever",
    "GraphPromptSynthesizer",
    "KGMethodQueryEngine",
    "KGMethodRetriever",
    "LlamaIndexChatLLM",
    "LlamaIndexEmbedder",
    "ToGRetriever",
    "build_llamacpp_llm",
    "chatml_completion_to_prompt",
    "chatml_messages_to_prompt",
    "evidence_nodes",
    "graph2text_tool",
    "graph_prompt_query_engine",
    "graph_query_engine",
    "gretriever_tool",
    "method_tool",
    "read_property_graph",
    "result_to_node",
]
