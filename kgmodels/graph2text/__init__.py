"""Graph2Text off the question path: training, data, metrics, publishing and the server.

The pieces: :mod:`.training` (``kgqa g2t train``: T5 from scratch or a Hub checkpoint),
:mod:`.causal_training` (LoRA on a decoder-only LM), :mod:`.data` (WebNLG files),
:mod:`.tokenizer` (a Unigram vocabulary for scratch models), :mod:`.metrics` (BLEU, chrF,
ROUGE-L), :mod:`.synth` (LLM-written training pairs, guarded), :mod:`.publish` (model card,
Hub upload) and :mod:`.serve` (LitServe server; :mod:`.serve_options`, :mod:`.serve_limits`,
:mod:`.serve_process`). The model itself, :class:`kgcore.text.graph2text.Graph2Text`, is in the
core.

Example
-------
>>> from kgmodels.graph2text import TrainConfig
>>> TrainConfig(base="scratch:tiny", output_dir="runs/g2t").base
'scratch:tiny'
"""

from kgmodels.graph2text.training import TrainConfig, TrainResult, train

__all__ = ["TrainConfig", "TrainResult", "train"]
