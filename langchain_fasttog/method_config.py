"""Typed ``config`` fields for the method adapters: a method's config dataclass, whose settings
may also be given flat (``ToGChain(graph=g, llm=m, width=2)``) or dotted
(``FastToGRetriever(graph=g, llm=m, **{"paths.max_hops": 0})``) and override ``config``'s.
The folding itself is the method builder's (:func:`kgcore.builder.method_config`), as for
``kgqa`` and the evaluation harness.

Example
-------
>>> from kgcore.methods.tog import ToGConfig
>>> data = fold_config({"width": 2, "config": ToGConfig(max_depth=1)}, "tog")
>>> data["config"].width, data["config"].max_depth
(2, 1)
"""

from __future__ import annotations

from typing import Any

from kgcore.builder import config_option_names, get_method, method_config


def fold_config(data: Any, method: str) -> Any:
    """``data`` (a model's input) with method ``method``'s settings and its ``preset`` (for a
    method with presets; the field stays) folded into ``data["config"]``. Any other key is
    left for the model, which refuses the ones it does not know.
    """
    if not isinstance(data, dict):
        return data
    names = config_option_names(method)
    given = {k: data[k] for k in data if k in names}
    preset = data.get("preset") if get_method(method).presets else None
    if not given and preset is None:
        return data
    data = {k: v for k, v in data.items() if k not in given}
    data["config"] = method_config(method, given, preset=preset)
    return data
