"""Scripted stand-ins the test suite swaps into the notebooks (``LLM = "scripted"``), and the
rule-based agent model of ``fasttog_langchain_agent.ipynb``.

They make the notebooks run in seconds without a model, to check that every cell works; the
answers they give are fixed, not reasoned. With ``LLM = "local"`` (``make notebooks``) or a
``provider:model`` string the notebooks use real models instead and none of this is imported.

Example
-------
>>> chat = scripted_chat_model()
>>> chat.invoke("anything").content
'{1}'
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage

from kgcore.llm import LLMRequest, ScriptedLLM


def scripted_chat_model(replies: Sequence[str] = ("{1}",)) -> FakeListChatModel:
    """A LangChain chat model cycling through ``replies`` ("{1}" picks option 1, or answers 1)."""
    return FakeListChatModel(responses=list(replies))


class ToolFirstModel(GenericFakeChatModel):
    """A rule-based agent model: it calls one tool with the user's question, then answers with
    the first line of the tool's reply. It stands in for a tool-calling chat model where none
    is at hand (the local 1.5B model does not call tools through llama.cpp)."""

    tool_name: str = "knowledge_graph"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolFirstModel:
        return self

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
        from langchain_core.outputs import ChatGeneration, ChatResult

        tool_results = [m for m in messages if m.type == "tool"]
        if not tool_results:
            question = next(m.content for m in messages if m.type == "human")
            call = {"name": self.tool_name, "args": {"question": question}, "id": "call-1"}
            message = AIMessage(content="", tool_calls=[call])
        else:
            first = str(tool_results[-1].content).strip().splitlines() or ["nothing found"]
            message = AIMessage(content=f"From the knowledge graph: {first[0]}")
        return ChatResult(generations=[ChatGeneration(message=message)])


def scripted_method_llm() -> ScriptedLLM:
    """A kgcore model for ``kgeval.evaluate``: a fixed, well-formed reply per step."""
    replies = {
        "prune": "{1}",
        "reason": "{Unknown}",
        "tog_relations": "{A: 1.0}",
        "tog_entities": "{A: 1.0}",
        "tog_reason": "{Unknown}",
        "cgpe_clues": '["film", "person"]',
        "extract_entities": '["Titanic"]',
    }

    def reply(request: LLMRequest) -> str:
        return replies.get(request.purpose, "{Unknown}")

    return ScriptedLLM(reply)


class HashingEmbedder:
    """A seeded random unit vector per text, instead of a sentence-transformers model."""

    model_id = "hashing-embedder"

    def __init__(self, dim: int = 16) -> None:
        self.dim = dim

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).normal(size=self.dim)
            rows.append(vector / np.linalg.norm(vector))
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
