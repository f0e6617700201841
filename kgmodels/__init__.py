"""Train, publish and serve the project's models.

:mod:`kgmodels.graph2text` trains Graph2Text (T5 from scratch or a Hub checkpoint, and LoRA on
a decoder-only LM), synthesises training pairs, writes the model card and uploads to the Hub,
and serves a model over HTTP (``kgqa g2t``). :mod:`kgmodels.gnn` trains and evaluates
G-Retriever's graph prompt (GNN + frozen LLM) on ExplaGraphs and on the graph-only MetaQA task,
with the ablations of ``benchmarks/gretriever_explagraphs.py`` (``kgqa gretriever``).

This package imports the core (:mod:`kgcore`); the core never imports it: what runs at question
time (loading a trained model, generating text, the guard, the HTTP client, loading a GNN
checkpoint) stays in :mod:`kgcore.text.graph2text` and :mod:`kgcore.gretriever.gnn`.
"""
