"""A FastToG run seen through its retriever's Documents keeps its cost: the agent notebook's
picture said "LLM calls 0" because the Documents carried no calls (issue 38)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from kgcore.graph import InMemoryGraphStore
from kgcore.methods.fasttog import FastToGConfig
from kgcore.visualize import fasttog_scene
from langchain_fasttog import FastToGRetriever, documents_to_result

QUESTION = "which films share the director of [Cleopatra]"


class _Calls(BaseCallbackHandler):
    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.calls[str(kwargs.get("name"))] += 1


def _store() -> InMemoryGraphStore:
    return InMemoryGraphStore.from_triples(
        [
            ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
            ("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
            ("Cleopatra", "starred_actors", "Elizabeth Taylor"),
            ("Giant", "starred_actors", "Elizabeth Taylor"),
            ("Giant", "directed_by", "George Stevens"),
            ("Shane", "directed_by", "George Stevens"),
        ]
    )


def test_the_rebuilt_result_counts_the_calls_the_retriever_made() -> None:
    llm = FakeListChatModel(responses=["{1}", "{Unknown}", "{1}", "{All About Eve}"])
    retriever = FastToGRetriever(
        graph=_store(), llm=llm, config=FastToGConfig(width=1, max_depth=3, max_community_size=2)
    )
    counter = _Calls()
    docs = retriever.invoke(QUESTION, config={"callbacks": [counter]})
    made = sum(n for name, n in counter.calls.items() if name.startswith("fasttog."))
    assert made >= 2 and docs

    result = documents_to_result(QUESTION, docs)
    assert result.llm_calls == made == docs[0].metadata["llm_calls"]
    assert result.answer == docs[0].metadata["answer"]
    chain_docs = [d.metadata for d in docs if d.metadata["kind"] == "chain"]
    assert [(c.chain, c.depth, c.nodes) for chain in result.chains for c in chain] == sorted(
        (m["chain"], m["depth"], tuple(m["entities"])) for m in chain_docs
    )
    (start,) = [d for d in docs if d.metadata["kind"] == "start"]
    assert result.start is not None and result.start.text == start.page_content
    assert f"LLM calls {made}" in fasttog_scene(result).note.split("; ")


def test_no_documents_rebuild_an_unknown_answer_with_no_chains() -> None:
    result = documents_to_result(QUESTION, [])
    assert (result.answer, result.chains, result.llm_calls) == ("Unknown", [], 0)
