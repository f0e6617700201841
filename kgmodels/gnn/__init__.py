"""Training and evaluating G-Retriever's graph prompt (GNN soft token + frozen LLM).

The pieces: :mod:`.training` (the resumable trainer and accuracy), :mod:`.explagraphs`
(ExplaGraphs rows as labelled graph prompts), :mod:`.explagraph_prompts` (their splits),
:mod:`.graph_task` and :mod:`.graph_task_prompts` (the graph-only yes/no task on MetaQA's
graph) and :mod:`.ablation` (intact, shuffled and zeroed graphs). The model, its checkpoints and
inference are in the core, :mod:`kgcore.gretriever.gnn`. Importing a module here that trains
loads PyTorch.
"""
