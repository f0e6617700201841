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

import warnings
from collections.abc import Sequence
from typing import Any

from kgcore.deprecation import KGRetrieverDeprecationWarning
from kgcore.exceptions import ConfigurationError


def fold_config(
    data: Any, config_type: type[Any], names: Sequence[str], deprecated_options: bool = False
) -> Any:
    """``data`` (a model's input) with the flat config fields folded into ``data["config"]``.

    ``config`` must be an instance of ``config_type`` (else :class:`ConfigurationError`);
    with ``deprecated_options`` the old untyped ``options`` dict is folded too, with a
    :class:`~kgcore.deprecation.KGRetrieverDeprecationWarning`.
    """
    if not isinstance(data, dict):
        return data
    data = dict(data)
    overrides = {k: data.pop(k) for k in names if k in data}
    if deprecated_options and "options" in data:
        warnings.warn(
            f"options is deprecated: pass a {config_type.__name__} as config, or its fields "
            "as keywords",
            KGRetrieverDeprecationWarning,
            stacklevel=4,
        )
        options = data.pop("options") or {}
        if not isinstance(options, dict):
            raise ConfigurationError(f"options must be a dict, got {type(options).__name__}")
        overrides = {**options, **overrides}
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
