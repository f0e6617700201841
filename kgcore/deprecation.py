"""Deprecated names: a warning category of our own and aliases that point to the new names.

A renamed function keeps its old name as an alias that warns with
:class:`KGRetrieverDeprecationWarning` (a ``DeprecationWarning``) and calls the new one. The test
suite turns this category into an error, so no code of the project calls an old name.

Example
-------
>>> import warnings
>>> def add(a: int, b: int) -> int:
...     return a + b
>>> plus = deprecated_alias(add, "mymodule.plus")
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     plus(1, 2)
3
>>> str(caught[0].message)
'mymodule.plus is deprecated; use add'
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class KGRetrieverDeprecationWarning(DeprecationWarning):
    """A name or argument of kg-retrievers that is going away; the message names its successor."""


def deprecated_alias(func: Callable[P, R], old_name: str) -> Callable[P, R]:
    """``func`` under its former name ``old_name``, warning at every call.

    The warning points at the caller's line; the alias's docstring names the new function and
    its signature is the new function's (``inspect.signature`` follows ``__wrapped__``).
    """
    new_name = func.__qualname__

    @functools.wraps(func)
    def alias(*args: P.args, **kwargs: P.kwargs) -> R:
        warnings.warn(
            f"{old_name} is deprecated; use {new_name}",
            KGRetrieverDeprecationWarning,
            stacklevel=2,
        )
        return func(*args, **kwargs)

    short = old_name.rsplit(".", 1)[-1]
    alias.__name__ = alias.__qualname__ = short
    alias.__doc__ = f"Deprecated alias of :func:`{func.__module__}.{new_name}` (it warns)."
    return alias
