"""LangChain adapters of kg-retrievers: FastToG retriever and Runnable chain, model adapters."""

from kgcore.methods.fasttog import FastToGConfig
from langchain_fasttog.chain import FastToGChain
from langchain_fasttog.llm import LangChainLLM
from langchain_fasttog.local_llm import ChatLlamaCppLocal
from langchain_fasttog.models import resolve_chat_model
from langchain_fasttog.retriever import FastToGRetriever, result_to_documents

__all__ = [
    "ChatLlamaCppLocal",
    "FastToGChain",
    "FastToGConfig",
    "FastToGRetriever",
    "LangChainLLM",
    "resolve_chat_model",
    "result_to_documents",
]
