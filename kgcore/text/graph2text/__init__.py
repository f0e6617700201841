"""Graph2Text: T5 graph-to-text generation for community textualisation.

The pieces: :mod:`.linearize` (``<H> s <R> p <T> o``), :mod:`.delex` (placeholders for
from-scratch models), :mod:`.model` (:class:`Graph2Text`, batched generation),
:mod:`.causal` (decoder-only models and LoRA adapters), :mod:`.guard` (hallucination check
with Triple2Text fallback), :mod:`.tool` (the tools' text) and :mod:`.remote` (HTTP client):
what runs at question time. Training, publishing and the server are in the ``kgmodels``
package, which imports this one (never the reverse). Heavy libraries (torch, transformers) are
imported only when a model is loaded.

Example
-------
>>> from kgcore.text.graph2text import linearize
>>> linearize([("Alan_Bean", "occupation", "Test_pilot")])
'<H> Alan Bean <R> occupation <T> Test pilot'
"""

from kgcore.text.graph2text.linearize import entity_text, linearize, relation_text
from kgcore.text.graph2text.model import Graph2Text
from kgcore.text.graph2text.settings import G2TSettings

__all__ = [
    "G2TSettings",
    "Graph2Text",
    "entity_text",
    "linearize",
    "relation_text",
]
