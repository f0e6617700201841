"""Options -> a method's settings, in one place: the preset first, then the config given, then
the flat (``width=2``) and dotted (``paths.max_hops=0``) options; unknown names refused.

Every caller folds options here: :func:`kgcore.builder.build_method`, ``kgqa ask`` and
``kgqa eval`` (before the model loads) and the adapters' typed ``config`` fields.

Example
-------
>>> method_config("fasttog", {"width": 2, "leaves.kept": 0}).leaves.shown
False
>>> method_config("fasttog", {"paths.max_hops": 0}).paths.enabled
False
>>> method_config("fasttog", preset="paper").first_choice
'llm'
>>> method_config("tog", {"width": 2}).width
2
>>> method_config("io") is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgcore.builder.catalogue import (
    BUDGET_OPTIONS,
    NESTED_FASTTOG_SETTINGS,
    get_method,
    method_options,
)
from kgcore.exceptions import ConfigurationError

#: The options of a configured method that are not settings of its config.
EXTRA_OPTIONS = {
    "fasttog": ("textualizer",),
    "fasttog-node": ("textualizer",),
    "cgpe": ("type_of",),
}


def merged_options(
    options: Mapping[str, Any] | None = None, flat: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``options`` and the keyword ``flat`` ones as one dict; a name in both with two values
    is an error.

    >>> merged_options({"width": 2}, {"max_depth": 1})
    {'width': 2, 'max_depth': 1}
    """
    merged = dict(options or {})
    for name, value in (flat or {}).items():
        if name in merged and merged[name] is not value and merged[name] != value:
            raise ConfigurationError(
                f"option {name} is given twice, as {merged[name]!r} and {value!r}"
            )
        merged[name] = value
    return merged


def take_preset(name: str, options: dict[str, Any], preset: str | None) -> str | None:
    """The preset of ``preset`` or ``options["preset"]`` (removed from ``options``); two
    different ones, or a preset for a method without presets, are errors."""
    given = options.pop("preset", None)
    if preset is not None and given is not None and preset != given:
        raise ConfigurationError(f"preset {preset!r} and the option preset={given!r} disagree")
    chosen = preset if preset is not None else given
    if chosen is not None and not get_method(name).presets:
        presets = ", ".join(n for n in ("fasttog", "fasttog-node") if get_method(n).presets)
        raise ConfigurationError(f"method {name!r} takes no preset (the ones that do: {presets})")
    return chosen


def check_names(name: str, options: Mapping[str, Any]) -> None:
    """Refuse the options method ``name`` does not accept, naming them and the accepted ones.

    >>> check_names("io", {"width": 3})
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: bad option for method 'io': width (it takes max_llm...)
    """
    accepted = method_options(name)
    unknown = sorted(set(options) - accepted)
    if unknown:
        takes = f"it takes {', '.join(sorted(accepted))}"
        raise ConfigurationError(f"bad option for method {name!r}: {', '.join(unknown)} ({takes})")


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


def _config_of(config_type: type, options: Mapping[str, Any]) -> Any:
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


def method_config(
    name: str, options: Mapping[str, Any] | None = None, *, preset: str | None = None
) -> Any:
    """The config object of method ``name`` (``FastToGConfig``, ``ToGConfig``,
    ``CGPEConfig``) from ``options`` (its settings, and optionally ``config`` and a
    ``preset``); ``None`` for a method without one. Options that are not settings of the
    config (``textualizer``, the cost cap) are refused here: pass them to
    :func:`kgcore.builder.build_method`.
    """
    options = dict(options or {})
    preset = take_preset(name, options, preset)
    check_names(name, options)
    extra = sorted(set(options) & (set(EXTRA_OPTIONS.get(name, ())) | BUDGET_OPTIONS))
    if extra:
        raise ConfigurationError(f"{', '.join(extra)}: not settings of method {name!r}'s config")
    if name in ("fasttog", "fasttog-node"):
        return fasttog_config(options, node_level=name == "fasttog-node", preset=preset)
    if name == "tog":
        from kgcore.methods.tog import ToGConfig

        return _config_of(ToGConfig, options)
    if name == "cgpe":
        from kgcore.methods.cgpe import CGPEConfig

        return _config_of(CGPEConfig, options)
    return None


def config_option_names(name: str) -> frozenset[str]:
    """The options of method ``name`` that :func:`method_config` folds into its config: its
    settings, flat and dotted, and ``config`` itself (not the preset, the cost cap or the
    options that are not settings, such as ``textualizer``).

    >>> {"width", "paths.max_hops", "config"} <= config_option_names("fasttog")
    True
    >>> "textualizer" in config_option_names("fasttog")
    False
    """
    others = BUDGET_OPTIONS | set(EXTRA_OPTIONS.get(name, ())) | {"preset"}
    return frozenset(method_options(name) - others)


def _settings_classes(name: str) -> list[Any]:
    """The settings classes that check the options of a method without one config."""
    if name in ("gretriever", "gretriever-gnn"):
        from kgcore.gretriever import PCSTSettings, RegionSettings

        classes: list[Any] = [PCSTSettings, RegionSettings]
        if name == "gretriever":
            from kgcore.methods.gretriever.qa import GRetrieverQAConfig

            classes.append(GRetrieverQAConfig)
        return classes
    if name == "cot-sc":
        from kgcore.methods.baselines import CoTSCConfig

        return [CoTSCConfig]
    return []


def budget_of(options: Mapping[str, Any]) -> Any:
    """The checked ``Budget`` of the cost-cap options among ``options`` (``None``: none)."""
    given = {k: v for k, v in options.items() if k in BUDGET_OPTIONS}
    if not given:
        return None
    from kgcore.methods.kernel.budget import Budget

    return Budget(**given)


def fold_options(
    name: str, options: Mapping[str, Any] | None = None, *, preset: str | None = None
) -> tuple[dict[str, Any], Any]:
    """Method ``name``'s options checked and folded, ready for its factory, and the cost cap
    (``None``: none): a configured method gets its config as ``config`` beside its other
    options (``textualizer``, ``type_of``); every other method its options as given. Bad
    names, types and ranges raise :class:`~kgcore.exceptions.ConfigurationError` (an
    :class:`~kgcore.exceptions.InvalidSettingError` for a setting's value).
    """
    options = dict(options or {})
    preset = take_preset(name, options, preset)
    check_names(name, options)
    budget = budget_of(options)
    rest = {k: v for k, v in options.items() if k not in BUDGET_OPTIONS}
    extras = {k: rest.pop(k) for k in EXTRA_OPTIONS.get(name, ()) if k in rest}
    if name in ("fasttog", "fasttog-node", "tog", "cgpe"):
        return {"config": method_config(name, rest, preset=preset), **extras}, budget
    for settings_class in _settings_classes(name):
        known = set(settings_class.setting_names())
        settings_class(**{k: v for k, v in rest.items() if k in known})  # checked, not kept
    return rest, budget


def check_options(name: str, options: Mapping[str, Any], preset: str | None = None) -> None:
    """Check method ``name``'s options as building it would, without a graph or a model: an
    unknown name, a wrongly typed or out-of-range value is a :class:`ConfigurationError`
    before anything slow starts (``kgqa`` calls it before loading the model).

    Example
    -------
    >>> check_options("fasttog", {"width": 2.5})
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: FastToG setting width must be an integer, got 2.5
    >>> check_options("tog", {"seed": -1})
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: ToG setting seed=-1 is out of range: ...
    """
    fold_options(name, options, preset=preset)
