"""The evaluation harness with a LangChain chat model.

:func:`kgeval.evaluate` takes the core's LLM protocol; :func:`evaluate` here adapts a
LangChain chat model (or any Runnable from messages to a message) with
:class:`~langchain_fasttog.llm.LangChainLLM` first, each method's steps then running as child
runs of the model's callbacks.

Example
-------
>>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
>>> import tempfile
>>> run = evaluate("io", "jsonl:" + _toy_questions(), FakeListChatModel(responses=["{Paris}"]),
...                out_dir=tempfile.mkdtemp(), progress=False, plots=False)
>>> run.accuracy
1.0
"""

from __future__ import annotations

from typing import Any

from kgeval.harness import EvalRun
from kgeval.harness import evaluate as core_evaluate
from langchain_fasttog.llm import LangChainLLM

__all__ = ["evaluate"]


def evaluate(method: str, data: Any, llm: Any, **kwargs: Any) -> EvalRun:
    """:func:`kgeval.evaluate` with ``llm`` a LangChain chat model (or a kgcore
    ``ChatLLM``, passed on as it is); ``kwargs`` as there."""
    # LangChain chat models have a generate() of their own: recognise them by their classes.
    langchain = any(c.__module__.startswith("langchain_core.") for c in type(llm).__mro__)
    model = LangChainLLM(llm, run_name_prefix=method) if langchain else llm
    return core_evaluate(method, data, model, **kwargs)


def _toy_questions() -> str:
    """A one-question JSONL file, for the example."""
    import json
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "qa.jsonl"
    path.write_text(json.dumps({"question": "capital of France?", "answers": "Paris"}) + "\n")
    return str(path)
