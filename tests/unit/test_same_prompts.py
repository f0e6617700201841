"""One way in (issue 49): ``kgqa ask``, the LangChain adapters and the LlamaIndex adapter build
a method with :func:`kgcore.builder.build_method`, so for one question and one set of settings
they send the model the same prompts, message for message.

Each door gets a scripted model that records every call's messages (as ``(role, text)``) and
answers from the same list of replies. FastToG runs with its defaults too: the CLI and the
adapters then rank with the same offline embedder (the ``embeddings`` extra is installed here),
so ``first_choice="auto"`` and ``topic_facts`` act alike in all three. The LlamaIndex door is
``method_tool(name, llm, graph=..., options=...)`` and each method's LlamaIndex retriever
(``FastToGRetriever``, ``ToGRetriever``, ``CGPERetriever``) through its query engine.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    LLMMetadata,
)
from llama_index.core.llms import CustomLLM

import langchain_fasttog.models as models
import llamaindex_gretriever
from kgcore.graph import InMemoryGraphStore
from kgqa.cli import main
from langchain_fasttog import CGPERetriever, FastToGRetriever, ToGChain
from llamaindex_gretriever import method_tool
from tests.support.movie_graph import MOVIE_TRIPLES

Messages = list[tuple[str, str]]
#: LangChain's message types as the roles the other doors write.
ROLES = {"system": "system", "human": "user", "ai": "assistant"}


class Script:
    """The replies one door gets, in order (``{Unknown}`` past the end), and what it sent."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.sent: list[Messages] = []

    def reply(self, messages: Messages) -> str:
        self.sent.append(messages)
        index = len(self.sent) - 1
        return self.replies[index] if index < len(self.replies) else "{Unknown}"


class LangChainScripted(BaseChatModel):
    """A LangChain chat model answering from a :class:`Script`."""

    script: Any

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        text = self.script.reply([(ROLES[m.type], str(m.content)) for m in messages])
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


class LlamaIndexScripted(CustomLLM):
    """A LlamaIndex chat LLM answering from a :class:`Script`."""

    script: Any = None

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=True)

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        text = self.script.reply([(m.role.value, str(m.content)) for m in messages])
        return ChatResponse(message=ChatMessage(role="assistant", content=text))

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise AssertionError("the methods chat")

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise AssertionError("the methods chat")


FASTTOG_REPLIES = ["{1}", "{1}", "{All About Eve}", "{All About Eve}", "{1}", "{All About Eve}"]
CASES = {
    "fasttog defaults": (
        "fasttog", "which films share the director of [Cleopatra]", {}, FASTTOG_REPLIES,
    ),
    "fasttog llm choices, dotted": (
        "fasttog",
        "which films share the director of [Cleopatra]",
        {"paths.max_hops": 0, "first_choice": "llm", "width": 2, "max_community_size": 2},
        FASTTOG_REPLIES,
    ),
    "tog": (
        "tog",
        "who directed [Cleopatra]",
        {"width": 2, "max_depth": 2},
        ["{A: 1.0}", "{A: 1.0}", "Yes {Joseph L. Mankiewicz}"],
    ),
    "cgpe": (
        "cgpe",
        "who is the director of Cleopatra",
        {"max_depth": 2},
        ['["Cleopatra", "director"]', "{A: director}", "{A}", "{Joseph L. Mankiewicz}"],
    ),
}  # fmt: skip
#: The LangChain class each method is offered as (ToG has a chain, no retriever).
LANGCHAIN = {"fasttog": FastToGRetriever, "tog": ToGChain, "cgpe": CGPERetriever}


def cli_prompts(
    method: str, question: str, options: dict[str, Any], replies: list[str], kb: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> tuple[list[Messages], str]:  # fmt: skip
    script = Script(replies)
    monkeypatch.setattr(models, "resolve_chat_model", lambda spec: LangChainScripted(script=script))
    sets = [f"--set={name}={value}" for name, value in options.items()]
    argv = ["ask", question, "--kg", str(kb), "--llm", "fake:x", "--method", method, *sets]
    assert main([*argv, "--sampling", "model", "--quiet", "--json"]) == 0
    return script.sent, json.loads(capsys.readouterr().out)["answer"]


def langchain_prompts(
    method: str, question: str, options: dict[str, Any], replies: list[str]
) -> tuple[list[Messages], str]:
    script = Script(replies)
    store = InMemoryGraphStore.from_triples(MOVIE_TRIPLES)
    adapter = LANGCHAIN[method](graph=store, llm=LangChainScripted(script=script), **options)
    output = adapter.invoke(question)
    answer = output["answer"] if isinstance(output, dict) else output[0].metadata["answer"]
    return script.sent, answer


def llamaindex_prompts(
    method: str, question: str, options: dict[str, Any], replies: list[str]
) -> tuple[list[Messages], str]:
    script = Script(replies)
    store = InMemoryGraphStore.from_triples(MOVIE_TRIPLES)
    tool = method_tool(method, LlamaIndexScripted(script=script), graph=store, options=options)
    return script.sent, str(tool.call(question=question).content)


#: The LlamaIndex retriever each method is offered as.
LLAMAINDEX = {
    "fasttog": llamaindex_gretriever.FastToGRetriever,
    "tog": llamaindex_gretriever.ToGRetriever,
    "cgpe": llamaindex_gretriever.CGPERetriever,
}


def llamaindex_retriever_prompts(
    method: str, question: str, options: dict[str, Any], replies: list[str]
) -> tuple[list[Messages], str]:
    script = Script(replies)
    store = InMemoryGraphStore.from_triples(MOVIE_TRIPLES)
    retriever = LLAMAINDEX[method](store, LlamaIndexScripted(script=script), **options)
    return script.sent, str(retriever.as_query_engine().query(question))


@pytest.mark.parametrize("case", list(CASES))
def test_cli_langchain_and_llamaindex_send_the_same_prompts(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    method, question, options, replies = CASES[case]
    kb = tmp_path / "kb.txt"
    kb.write_text("".join(f"{h}|{r}|{t}\n" for h, r, t in MOVIE_TRIPLES))
    cli, cli_answer = cli_prompts(method, question, options, replies, kb, monkeypatch, capsys)
    langchain, langchain_answer = langchain_prompts(method, question, options, replies)
    llamaindex, llamaindex_answer = llamaindex_prompts(method, question, options, replies)
    retriever, retriever_answer = llamaindex_retriever_prompts(method, question, options, replies)
    assert cli, "the CLI sent no prompt"
    assert retriever == cli
    assert retriever_answer.startswith(cli_answer)  # the engine may explain an Unknown
    assert langchain == cli
    assert llamaindex == cli
    assert cli_answer == langchain_answer
    assert llamaindex_answer.startswith(cli_answer)  # the tool may add a fallback note
