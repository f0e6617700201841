"""Each configured method's config from its options: FastToG's (a preset, then the config
given, then flat and dotted settings), and the plain one of ToG and CGPE. The catalogue
(:mod:`kgcore.builder.catalogue`) names which one a method uses.

Example
-------
>>> fasttog_config({"width": 2, "leaves.kept": 0}).leaves.shown
False
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgcore.builder.catalogue import NESTED_FASTTOG_SETTINGS, get_method, method_names
from kgcore.exceptions import ConfigurationError

__all__ = ["config_of", "fasttog_config", "take_preset"]


def take_preset(name: str, options: dict[str, Any], preset: str | None) -> str | None:
    """The preset of ``preset`` or ``options["preset"]`` (removed from ``options``); two
    different ones, or a preset for a method without presets, are errors."""
    given = options.pop("preset", None)
    if preset is not None and given is not None and preset != given:
        raise ConfigurationError(f"preset {preset!r} and the option preset={given!r} disagree")
    chosen = preset if preset is not None else given
    if chosen is not None and not get_method(name).presets:
        presets = ", ".join(n for n in method_names() if get_method(n).presets)
        raise ConfigurationError(f"method {name!r} takes no preset (the ones that do: {presets})")
    return chosen


def fasttog_config(
    options: Mapping[str, Any], node_level: bool = False, preset: str | None = None
) -> Any:
    """The :class:`~kgcore.methods.fasttog.FastToGConfig` of ``options``: the ``preset`` (or
    ``options["preset"]``) or the ``config`` given, then the settings; ``GROUP.NAME`` options
    set one setting of a nested group (``lcs``, ``leaves``, ``paths``). ``node_level``:
    communities of one node. A preset and a config together are refused.

    >>> fasttog_config({"width": 2, "leaves.kept": 0}).leaves.shown
    False
    >>> fasttog_config({"max_community_size": 3}, node_level=True).lcs.max_community_size
    1
    """
    from kgcore.methods.fasttog import FastToGConfig

    options = dict(options)
    preset = take_preset("fasttog", options, preset)
    config = options.pop("config", None)
    if isinstance(config, Mapping):  # a serialised config
        config = FastToGConfig(**config)
    if config is not None and not isinstance(config, FastToGConfig):
        raise ConfigurationError(f"config must be a FastToGConfig, got {type(config).__name__}")
    if preset is not None and config is not None:
        raise ConfigurationError(
            f"give preset={preset!r} or config, not both: "
            f"config=FastToGConfig.preset({preset!r}, ...) sets both"
        )
    base = config or (FastToGConfig.preset(preset) if preset else FastToGConfig())
    for group in NESTED_FASTTOG_SETTINGS:
        prefix = f"{group}."
        nested = {
            k.removeprefix(prefix): options.pop(k) for k in list(options) if k.startswith(prefix)
        }
        if nested:
            inner = options.pop(group, None) or getattr(base, group)
            options[group] = inner.with_overrides(**nested)
    if node_level:
        options["max_community_size"] = 1
    return base.with_overrides(**options) if options else base


def config_of(config_type: type, options: Mapping[str, Any]) -> Any:
    """``config_type`` from ``options``: its ``config`` (an instance, else the defaults), with
    the other options as overrides."""
    options = dict(options)
    config = options.pop("config", None)
    if config is None:
        config = config_type()
    elif not isinstance(config, config_type):
        raise ConfigurationError(
            f"config must be a {config_type.__name__}, got {type(config).__name__}"
        )
    return config.with_overrides(**options) if options else config
