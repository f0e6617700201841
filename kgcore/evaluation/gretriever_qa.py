"""Moved: G-Retriever question answering is a method, :mod:`kgcore.methods.gretriever_qa`.

This module keeps ``from kgcore.evaluation.gretriever_qa import GRetrieverQA`` working.

Example
-------
>>> from kgcore.methods.gretriever_qa import GRetrieverQA as moved
>>> GRetrieverQA is moved
True
"""

from kgcore.methods.gretriever_qa import GRetrieverQA

__all__ = ["GRetrieverQA"]
