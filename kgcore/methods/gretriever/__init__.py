"""G-Retriever as question-answering methods: the retrieved subgraph answered by a prompted chat
model (:class:`GRetrieverQA`, ``kgqa eval --method gretriever``) or by the trained GNN graph
prompt into a frozen LLM (:class:`GRetrieverGNNQA`, ``--method gretriever-gnn``).

Example
-------
>>> from kgcore.methods.gretriever import GRetrieverQA
>>> GRetrieverQA.name
'gretriever'
"""

from kgcore.methods.gretriever.gnn import GRetrieverGNNQA
from kgcore.methods.gretriever.qa import GRetrieverQA, GRetrieverQAConfig

__all__ = ["GRetrieverGNNQA", "GRetrieverQA", "GRetrieverQAConfig"]
