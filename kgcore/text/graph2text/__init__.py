"""Graph2Text: T5 graph-to-text generation for community textualisation.

The pieces: :mod:`.linearize` (``<H> s <R> p <T> o``), :mod:`.delex` (placeholders for
from-scratch models), :mod:`.model` (:class:`Graph2Text`, batched generation),
:mod:`.training` (``kgqa g2t train``), :mod:`.metrics` (BLEU, chrF, ROUGE-L),
:mod:`.guard` (hallucination check with Triple2Text fallback), :mod:`.remote` (HTTP client),
:mod:`.serve` (LitServe server) and :mod:`.publish` (model card, Hub upload).
Heavy libraries (torch, transformers) are imported only when a model is loaded or trained.

Example
-------
>>> from kgcore.text.graph2text import linearize
>>> linearize([("Alan_Bean", "occupation", "Test_pilot")])
'<H> Alan Bean <R> occupation <T> Test pilot'
"""

from kgcore.text.graph2text.linearize import entity_text, linearize, relation_text
from kgcore.text.graph2text.model import Graph2Text
from kgcore.text.graph2text.settings import G2TSettings
from kgcore.text.graph2text.training import TrainConfig, TrainResult, train

__all__ = [
    "G2TSettings",
    "Graph2Text",
    "TrainConfig",
    "TrainResult",
    "entity_text",
    "linearize",
    "relation_text",
    "train",
]
