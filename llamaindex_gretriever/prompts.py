"""The graph-QA prompt that goes with G-Retriever's subgraph text, and a query-engine helper.

LlamaIndex's default ``text_qa_template`` speaks of "context information" and lets a small model
answer from its own memory; with the subgraph as context it answered "The Godfather" although the
retrieved triple was (Carmen, starred_actors, Ruggero Raimondi). :data:`GRAPH_QA_PROMPT` says
what the context is, shows one worked example with placeholder names, and asks for the answer
names only. On 6 MetaQA dev 1-hop questions with the local Qwen2.5-Coder-1.5B it answered
``Carmen`` and named a gold answer first in all 6 (without the example, the model answered with
the question's own entity, "Ruggero Raimondi"; with a real film as the example, it once copied
that film). The example is written for triples (``text_format="triples"``), with relations as the
verbaliser writes them, and in no one domain (it was a movie example until the cross-graph
report). Its example has two answers, so that the reader names them all
(``benchmarks/graph_qa_prompt.py``: on dev 1-hop 51-80 hit@1 0.93 against 0.87 with a one-answer
example, as many gold answers named; a 1.5B reader still names one director of two).

Example
-------
>>> text = GRAPH_QA_PROMPT.format(context_str="(Carmen, starred_actors, Ruggero Raimondi)",
...                               query_str="[Ruggero Raimondi] appears in which movies")
>>> print(text.splitlines()[-1].strip())
Answer:
"""

from __future__ import annotations

from typing import Any

from llama_index.core import PromptTemplate
from llama_index.core.base.base_retriever import BaseRetriever

GRAPH_QA_PROMPT = PromptTemplate(
    "Answer questions from knowledge-graph facts, written (head, relation, tail). Reply with "
    "every answer name the facts give, separated by commas, and nothing else.\n\n"
    "Facts:\n(Company X, founded by, Person Y)\n(Company Z, founded by, Person Y)\n"
    "(Company Z, located in, City W)\n"
    "Question: [Person Y] founded which companies\nAnswer: Company X, Company Z\n\n"
    "Facts:\n{context_str}\nQuestion: {query_str}\nAnswer: "
)


def graph_query_engine(retriever: BaseRetriever, llm: Any = None, **kwargs: Any) -> Any:
    """A ``RetrieverQueryEngine`` over ``retriever`` that answers with :data:`GRAPH_QA_PROMPT`.

    ``kwargs`` go to ``RetrieverQueryEngine.from_args`` (``text_qa_template`` overrides the
    prompt).

    Example
    -------
    >>> engine = graph_query_engine(retriever, llm=build_llamacpp_llm())  # doctest: +SKIP
    >>> print(engine.query("[Ruggero Raimondi] appears in which movies"))  # doctest: +SKIP
    Carmen
    """
    from llama_index.core.query_engine import RetrieverQueryEngine

    kwargs.setdefault("text_qa_template", GRAPH_QA_PROMPT)
    return RetrieverQueryEngine.from_args(retriever, llm=llm, **kwargs)
