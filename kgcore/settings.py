"""One contract for every method's settings: typed, ranged, checked when made.

Every method's config (``FastToGConfig``, ``ToGConfig``, ``CGPEConfig``, the Local Community
Search's ``LCSConfig``, G-Retriever's ``PCSTSettings`` and ``RegionSettings``) is a frozen
dataclass under :func:`checked_settings`, which gives it the same behaviour:

- every field is checked against its type hint when the config is made: an ``int`` setting
  refuses ``2.5``, ``True`` and ``"3"``; a ``float`` one refuses NaN and infinities; a
  ``tuple[int, ...]`` one each of its items; ``None`` only where the hint allows it;
- numbers are checked against the owner's documented ranges (:mod:`kgcore.validation`'s
  limits), and strings against their choices;
- an unknown setting name is refused, listing the known ones;
- ``with_overrides(**changes)`` gives a checked copy (every given value is set, ``None`` too).

All of these raise :class:`~kgcore.exceptions.InvalidSettingError` (a ``ConfigurationError``
and a ``ValueError``), from the API as from ``kgqa ... --set``.

Example
-------
>>> from dataclasses import dataclass
>>> @checked_settings("Demo", limits={"width": (1, 8)})
... @dataclass(frozen=True)
... class Demo(Settings):
...     width: int = 3
>>> Demo(width=2.5)
Traceback (most recent call last):
...
kgcore.exceptions.InvalidSettingError: Demo setting width must be an integer, got 2.5
>>> Demo(wdth=2)
Traceback (most recent call last):
...
kgcore.exceptions.InvalidSettingError: Demo has no setting 'wdth'; its settings are width
>>> Demo().with_overrides(width=5).width
5
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, get_args, get_origin

from kgcore.exceptions import InvalidSettingError
from kgcore.validation import check_range

__all__ = ["Settings", "check_fields", "checked_settings", "setting_names"]

T = TypeVar("T")


def setting_names(cls: type) -> tuple[str, ...]:
    """The keyword names a config takes: its fields, then the settings of its nested config
    that may be given flat (``flat`` of :func:`checked_settings`)."""
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    names += list(getattr(cls, "flat_settings", ()))
    return tuple(dict.fromkeys(names))


def _kind(hint: Any) -> str:
    args = get_args(hint)
    if get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
        return f"a tuple of {_kind(args[0])}"
    if get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_kind(arg) for arg in args if arg is not type(None)) + " (or None)"
    if hint is int:
        return "an integer"
    if hint is float:
        return "a number"
    if hint is bool:
        return "true or false"
    if hint is str:
        return "a string"
    return getattr(hint, "__name__", str(hint))


def _matches(value: Any, hint: Any) -> bool:
    """Whether ``value`` fits the type hint ``hint`` (the few kinds configs use)."""
    if hint is Any or hint is object:
        return True
    origin = get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, arg) for arg in get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return (
            isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        )
    if hint is str:
        return isinstance(value, str)
    if origin is typing.Literal:
        return value in get_args(hint)
    if origin in (tuple, Sequence) or hint is tuple:
        args = get_args(hint)
        if not isinstance(value, (tuple, list)):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_matches(item, args[0]) for item in value)
        return True
    if origin in (Callable, getattr(typing, "Callable", None)) or hint is Callable:
        return callable(value) or isinstance(value, str)  # a style name, converted by the owner
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True  # a hint too rich to check here: the owner's own checks apply


def check_fields(owner: str, config: Any, limits: Mapping[str, tuple[float, float]] = {}) -> None:
    """Check every field of the dataclass ``config`` against its type hint, then the numbers
    against ``limits`` (``name -> (low, high)``, inclusive)."""
    hints = typing.get_type_hints(type(config))
    for f in dataclasses.fields(config):
        if not f.init:
            continue
        value = getattr(config, f.name)
        hint = hints.get(f.name, Any)
        if not _matches(value, hint):
            raise InvalidSettingError(
                f"{owner} setting {f.name} must be {_kind(hint)}, got {value!r}"
            )
    for name, (low, high) in limits.items():
        value = getattr(config, name, None)
        if value is None:
            continue
        items = value if isinstance(value, (tuple, list)) else (value,)
        for item in items:
            check_range(owner, name, item, low, high)


S = TypeVar("S", bound="Settings")


class Settings:
    """Base of every config class: a checked copy (:meth:`with_overrides`) and the names."""

    def with_overrides(self: S, **overrides: Any) -> S:
        """A checked copy with ``overrides`` set (every given value, ``None`` too); an unknown
        name is refused (:class:`~kgcore.exceptions.InvalidSettingError`)."""
        current = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}  # type: ignore[arg-type]
        return type(self)(**{**current, **overrides})

    @classmethod
    def setting_names(cls) -> tuple[str, ...]:
        """Every keyword the config takes."""
        return setting_names(cls)


def checked_settings(
    owner: str,
    limits: Mapping[str, tuple[float, float]] = {},
    choices: Mapping[str, Sequence[str]] = {},
    flat: str | None = None,
) -> Callable[[type[T]], type[T]]:
    """Give a frozen dataclass the settings contract of this module.

    ``limits`` are its numbers' ranges, ``choices`` the allowed values of its string settings.
    ``flat`` names a field holding a nested config whose settings may also be given flat, as
    keywords of their own (``FastToGConfig(radius=1)`` sets ``lcs.radius``); they are read on
    the nested config only. The class's own ``__post_init__`` (cross-field rules,
    conversions) runs after the field checks.
    """

    def wrap(cls: type[T]) -> type[T]:
        init = cls.__init__
        nested_type: Any = typing.get_type_hints(cls)[flat] if flat is not None else None
        nested_names = setting_names(nested_type) if nested_type is not None else ()
        names = setting_names(cls) + nested_names
        own_post_init = getattr(cls, "__post_init__", None)

        def check(self: Any) -> None:
            check_fields(owner, self, limits)
            for name, allowed in choices.items():
                value = getattr(self, name)
                if value not in allowed:
                    raise InvalidSettingError(
                        f"{owner} setting {name} must be one of {', '.join(allowed)}, got {value!r}"
                    )

        @functools.wraps(init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            unknown = sorted(set(kwargs) - set(names))
            if unknown:
                quoted = ", ".join(repr(name) for name in unknown)
                raise InvalidSettingError(
                    f"{owner} has no setting {quoted}; its settings are {', '.join(names)}"
                )
            given = {name: kwargs.pop(name) for name in nested_names if name in kwargs}
            if given:
                base = kwargs.get(flat) or nested_type()  # type: ignore[arg-type]
                if not isinstance(base, nested_type):
                    raise InvalidSettingError(
                        f"{owner} setting {flat} must be {nested_type.__name__}, got "
                        f"{type(base).__name__}"
                    )
                kwargs[flat] = base.with_overrides(**given)  # type: ignore[index]
            init(self, *args, **kwargs)
            if own_post_init is None:  # the generated __init__ calls no __post_init__
                check(self)

        if own_post_init is not None:

            def __post_init__(self: Any) -> None:
                check(self)
                own_post_init(self)

            cls.__post_init__ = __post_init__  # type: ignore[attr-defined]
        cls.__init__ = __init__  # type: ignore[method-assign]
        cls.settings_owner = owner  # type: ignore[attr-defined]
        cls.flat_settings = nested_names  # type: ignore[attr-defined]
        return cls

    return wrap
