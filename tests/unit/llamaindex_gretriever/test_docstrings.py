"""The examples in the LlamaIndex G-Retriever docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "name",
    [
        "llamaindex_gretriever.llm",
        "llamaindex_gretriever.retriever",
        "llamaindex_gretriever.property_graph",
    ],
)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
