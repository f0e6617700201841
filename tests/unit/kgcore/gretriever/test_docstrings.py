"""The examples in the G-Retriever docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "kgcore.embeddings",
    "kgcore.gretriever.index",
    "kgcore.gretriever.pcst",
    "kgcore.gretriever.prizes",
    "kgcore.gretriever.region",
    "kgcore.gretriever.result",
    "kgcore.gretriever.retriever",
    "kgcore.gretriever.textgraph",
    "kgcore.gretriever.textualize",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
