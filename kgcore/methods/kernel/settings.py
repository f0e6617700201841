"""Checks the methods' configs share beyond the settings contract (:mod:`kgcore.settings`):
prompt templates that ``str.format`` can fill, and relation verbalisers.

Example
-------
>>> check_template("ToG", "reason_prompt", "Q: {question}", ["question"])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from kgcore.exceptions import InvalidSettingError
from kgcore.text.relations import RelationVerbalizer, Verbalizer

__all__ = ["check_template", "check_verbalizer"]

C = TypeVar("C")


def check_template(owner: str, name: str, template: str, fields: Iterable[str]) -> None:
    """Refuse a prompt template that ``str.format`` cannot fill from ``fields``.

    Literal braces are written doubled (``{{A: 0.7}}``).

    >>> check_template("ToG", "reason_prompt", "Q: {question} {{Unknown}}", ["question"])
    >>> check_template("ToG", "reason_prompt", "Q: {query}", ["question"])
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: ToG setting reason_prompt: ...
    """
    if not isinstance(template, str):
        raise InvalidSettingError(f"{owner} setting {name} must be a string, got {template!r}")
    try:
        template.format(**{field: "" for field in fields})
    except (KeyError, IndexError, ValueError) as err:
        raise InvalidSettingError(
            f"{owner} setting {name}: the template cannot be filled ({err!r}); its fields are "
            f"{', '.join(sorted(fields))}, and literal braces are written doubled"
        ) from None


def check_verbalizer(owner: str, value: Any) -> Verbalizer:
    """A config's relation verbaliser: a callable ``relation -> text``, or a style name
    (``"readable"``, ``"raw"``, as ``kgqa eval --set verbalizer=raw`` gives it).

    >>> check_verbalizer("ToG", "raw")("people.person.gender")
    'people.person.gender'
    >>> check_verbalizer("ToG", 3)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: ToG setting verbalizer must be a callable ...
    """
    if isinstance(value, str):
        return RelationVerbalizer(style=value)  # type: ignore[arg-type]
    if not callable(value):
        raise InvalidSettingError(
            f"{owner} setting verbalizer must be a callable relation -> text or one of "
            f"'readable', 'raw'; got {type(value).__name__}"
        )
    return value
