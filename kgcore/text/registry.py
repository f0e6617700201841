"""Textualizers by name: ``"t2t"``, ``"g2t"``, ``"g2t:PATH_OR_REPO"``, ``"g2t+http://..."``.

``g2t`` is Graph2Text behind the hallucination guard, with the default model of
:mod:`kgcore.text.graph2text.default`: ``$KG_G2T_MODEL`` when set, else the fine-tuned
``graph2text-webnlg-smollm2`` where its extra and base model are installed, else the small T5
``graph2text-webnlg-small`` (with a warning naming what is missing); ``g2t:PATH_OR_REPO`` loads
the model given; ``g2t+URL`` uses a running ``kgqa g2t serve`` (token from ``$KG_G2T_TOKEN``).
The guarded textualizer's ``model_name`` says which model writes (FastToG records it in
``result.extra["textualizer_model"]``). Loaded models are cached per name, so an evaluation
loads one once.

Example
-------
>>> resolve_textualizer("t2t").__class__.__name__
'Triple2Text'
>>> resolve_textualizer(None).__class__.__name__
'Triple2Text'
"""

from __future__ import annotations

import os
import threading
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgcore.text.triple2text import CommunityTextualizer, Triple2Text
from kglocal.locations import G2T_MODEL_NAME

#: The small T5's name (the fallback; the default is chosen by
#: :func:`kgcore.text.graph2text.default.choose_graph2text`).
DEFAULT_G2T_MODEL = G2T_MODEL_NAME
_cache: dict[str, Any] = {}
_lock = threading.Lock()


def _guarded(spec: str) -> Any:
    """The guarded textualizer a ``g2t`` spec names (the tools' own choice of server, model or
    default, :func:`~kgcore.text.graph2text.tool.guarded_textualizer`)."""
    from kgcore.text.graph2text.tool import guarded_textualizer

    if spec.startswith("g2t+"):
        return guarded_textualizer(url=spec[4:], token=os.environ.get("KG_G2T_TOKEN"))
    _, _, where = spec.partition(":")
    return guarded_textualizer(where or None)


def resolve_textualizer(spec: str | CommunityTextualizer | None) -> CommunityTextualizer:
    """A textualizer for a name (see the module docstring); an object is returned as is."""
    if spec is None or spec == "t2t":
        return Triple2Text()
    if not isinstance(spec, str):
        return spec
    if spec == "g2t" or spec.startswith(("g2t:", "g2t+")):
        with _lock:
            if spec not in _cache:
                _cache[spec] = _guarded(spec)
            textualizer: CommunityTextualizer = _cache[spec]
        return textualizer
    raise ConfigurationError(
        f"unknown textualizer {spec!r}: use t2t, g2t, g2t:PATH_OR_REPO or g2t+http://HOST:PORT"
    )
