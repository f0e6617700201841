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

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from kgcore.builder.catalogue import BUDGET_OPTIONS, get_method, method_options
from kgcore.builder.configs import fasttog_config, take_preset
from kgcore.exceptions import ConfigurationError

__all__ = [
    "unknown_names",
    "check_options",
    "config_option_names",
    "fasttog_config",
    "fold_options",
    "method_config",
    "merged_options",
    "take_preset",
]


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
        named = unknown_names(unknown, accepted)
        raise ConfigurationError(f"bad option for method {name!r}: {named} ({takes})")


def unknown_names(unknown: Iterable[str], accepted: Iterable[str]) -> str:
    """The ``unknown`` setting names, each with the closest accepted one where one is close
    (a misspelling).

    >>> unknown_names(["widht", "colour"], ["width", "max_depth"])
    "widht (did you mean 'width'?), colour"
    """
    choices = sorted(accepted)
    named = []
    for word in unknown:
        close = difflib.get_close_matches(word, choices, n=1, cutoff=0.7)
        named.append(f"{word} (did you mean {close[0]!r}?)" if close else word)
    return ", ".join(named)


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
    spec = get_method(name)
    extra = sorted(set(options) & (set(spec.extra_options) | BUDGET_OPTIONS))
    if extra:
        raise ConfigurationError(f"{', '.join(extra)}: not settings of method {name!r}'s config")
    return spec.make_config(options, preset) if spec.make_config is not None else None


def config_option_names(name: str) -> frozenset[str]:
    """The options of method ``name`` that :func:`method_config` folds into its config: its
    settings, flat and dotted, and ``config`` itself (not the preset, the cost cap or the
    options that are not settings, such as ``textualizer``).

    >>> {"width", "paths.max_hops", "config"} <= config_option_names("fasttog")
    True
    >>> "textualizer" in config_option_names("fasttog")
    False
    """
    others = BUDGET_OPTIONS | set(get_method(name).extra_options) | {"preset"}
    return frozenset(method_options(name) - others)


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
    spec = get_method(name)
    extras = {k: rest.pop(k) for k in spec.extra_options if k in rest}
    if "scorer" in extras:  # a path scorer's folder: there, before anything slow starts
        from kgcore.paths.learned import check_scorer_spec

        check_scorer_spec(extras["scorer"])
    if spec.make_config is not None:
        return {"config": method_config(name, rest, preset=preset), **extras}, budget
    for settings_class in spec.settings_classes():
        known = set(settings_class.setting_names())
        settings_class(**{k: v for k, v in rest.items() if k in known})  # checked, not kept
    if preset is not None:  # a method without a config takes its preset as it is
        rest["preset"] = preset
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
