"""The cost cap in the LlamaIndex method tool (issue 39): ``method_tool(...,
max_llm_calls=N)`` stops each question after N model calls, sync and async."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kgcore.exceptions import InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.tog import ToG
from llamaindex_gretriever.agent_tools import method_tool
from tests.support.movie_graph import MOVIE_TRIPLES

QUESTION = "which films share the director of [Cleopatra]"


def scripted() -> ScriptedLLM:
    return ScriptedLLM.by_purpose(
        {"tog_relations": ["{A: 1.0}"], "tog_entities": ["{A: 1.0}"], "tog_reason": ["{Unknown}"],
         "cot": ["So {Unknown}"]},
        repeat_last=True,
    )  # fmt: skip


def tog() -> ToG:
    return ToG(InMemoryGraphStore.from_triples(MOVIE_TRIPLES))


@pytest.mark.parametrize("cap", [1, 2])
def test_the_method_tool_stops_after_max_llm_calls(cap: int) -> None:
    free = scripted()
    method_tool(tog(), free).call(question=QUESTION)
    assert len(free.requests) > cap
    llm = scripted()
    method_tool(tog(), llm, max_llm_calls=cap).call(question=QUESTION)
    assert len(llm.requests) == cap
    llm = scripted()
    asyncio.run(method_tool(tog(), llm, max_llm_calls=cap).acall(question=QUESTION))
    assert len(llm.requests) == cap


def test_the_methods_own_budget_holds_in_the_tool() -> None:
    llm = scripted()
    method_tool(tog().with_budget(max_prompt_tokens=1), llm).call(question=QUESTION)
    assert llm.requests == []


@pytest.mark.parametrize("bad", [{"max_llm_calls": 0}, {"max_prompt_tokens": 2.5}], ids=repr)
def test_a_bad_cap_is_refused_when_the_tool_is_made(bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidSettingError, match="Budget setting"):
        method_tool(tog(), scripted(), **bad)
