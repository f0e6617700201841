"""G-Retriever for LlamaIndex: a retriever, a property-graph sub-retriever and a local LLM helper.

Example
-------
>>> from llamaindex_gretriever import GRetrieverRetriever, build_llamacpp_llm
>>> from llama_index.core.query_engine import RetrieverQueryEngine
>>> retriever = GRetrieverRetriever.from_triples(triples)                  # doctest: +SKIP
>>> engine = RetrieverQueryEngine.from_args(retriever, llm=build_llamacpp_llm())  # doctest: +SKIP
"""

from llamaindex_gretriever.gnn import GraphPromptSynthesizer, graph_prompt_query_engine
from llamaindex_gretriever.llm import (
    build_llamacpp_llm,
    chatml_completion_to_prompt,
    chatml_messages_to_prompt,
)
from llamaindex_gretriever.property_graph import GRetrieverPGRetriever, read_property_graph
from llamaindex_gretriever.retriever import GRetrieverRetriever, result_to_node

__all__ = [
    "GRetrieverPGRetriever",
    "GRetrieverRetriever",
    "GraphPromptSynthesizer",
    "build_llamacpp_llm",
    "chatml_completion_to_prompt",
    "chatml_messages_to_prompt",
    "graph_prompt_query_engine",
    "read_property_graph",
    "result_to_node",
]
