"""LangChain adapters of kg-retrievers: FastToG, ToG, CGPE and G-Retriever as retrievers and
Runnable chains, the prompt baselines as chains, and the model adapters."""

from kgcore.methods.fasttog import FastToGConfig
from langchain_fasttog.base import KGMethodChain, KGMethodRetriever
from langchain_fasttog.baselines import BaselineChain
from langchain_fasttog.cgpe import CGPEChain, CGPERetriever, cgpe_documents
from langchain_fasttog.chain import FastToGChain
from langchain_fasttog.embeddings import LangChainEmbedder
from langchain_fasttog.evaluation import evaluate
from langchain_fasttog.gretriever import GRetrieverChain, GRetrieverRetriever
from langchain_fasttog.llm import LangChainLLM
from langchain_fasttog.local_llm import ChatLlamaCppLocal
from langchain_fasttog.models import resolve_chat_model
from langchain_fasttog.retriever import (
    FastToGRetriever,
    documents_to_result,
    evidence_documents,
    result_to_documents,
)
from langchain_fasttog.tog import ToGChain, ToGRetriever
from langchain_fasttog.tools import Graph2TextTool

__all__ = [
    "BaselineChain",
    "CGPEChain",
    "CGPERetriever",
    "ChatLlamaCppLocal",
    "FastToGChain",
    "FastToGConfig",
    "FastToGRetriever",
    "GRetrieverChain",
    "GRetrieverRetriever",
    "Graph2TextTool",
    "KGMethodChain",
    "KGMethodRetriever",
    "LangChainEmbedder",
    "LangChainLLM",
    "ToGChain",
    "ToGRetriever",
    "cgpe_documents",
    "documents_to_result",
    "evaluate",
    "evidence_documents",
    "resolve_chat_model",
    "result_to_documents",
]
