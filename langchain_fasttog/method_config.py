"""Typed ``config`` fields for the method adapters: a method's config dataclass, whose fields
may also be given flat (``ToGChain(graph=g, llm=m, width=2)``) and override ``config``'s.

Example
-------
>>> from kgcore.methods.tog import ToGConfig
>>> config = fold_config({"width": 2, "config": ToGConfig(max_depth=1)}, ToGConfig, ["width"])
>>> config["config"].width, config["config"].max_depth
(2, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgcore.exceptions import ConfigurationError


def fold_config(data: Any, config_type: type[Any], names: Sequence[str]) -> Any:
    """``data`` (a model's input) with the flat config fields folded into ``data["config"]``.

    ``config`` must be an instance of ``config_type`` (else :class:`ConfigurationError`). Any
    other key is left for the model, which refuses the ones it does not know.
    """
    if not isinstance(data, dict):
        return data
    data = dict(data)
    overrides = {k: data.pop(k) for k in names if k in data}
    config = data.get("config")
    if config is None:
        config = config_type()
    elif not isinstance(config, config_type):
        raise ConfigurationError(
            f"config must be a {config_type.__name__}, got {type(config).__name__}"
        )
    if overrides:
        config = config.with_overrides(**overrides)
    data["config"] = config
    return data
