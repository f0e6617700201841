"""The pydantic base of the LangChain adapters' objects: construction raises kg-retrievers
errors as they are (:class:`KGModel`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from kgcore.exceptions import KGRetrieverError

__all__ = ["KGModel", "kg_error_of"]


def kg_error_of(error: ValidationError) -> KGRetrieverError | None:
    """The first kg-retrievers error a pydantic validator raised, if any.

    :class:`~kgcore.exceptions.ConfigurationError` is a ``ValueError``, which pydantic wraps in
    a ``ValidationError``; the adapters raise the original instead, so the error contract
    (every error a :class:`~kgcore.exceptions.KGRetrieverError`) holds for construction too.

    Example
    -------
    >>> from pydantic import BaseModel, field_validator
    >>> from kgcore.exceptions import ConfigurationError
    >>> class Model(BaseModel):
    ...     x: int
    ...     @field_validator("x")
    ...     @classmethod
    ...     def _check(cls, value):
    ...         raise ConfigurationError("x is wrong")
    >>> try:
    ...     Model(x=1)
    ... except ValidationError as err:
    ...     print(repr(kg_error_of(err)))
    ConfigurationError('x is wrong')
    """
    for detail in error.errors():
        cause = (detail.get("ctx") or {}).get("error")
        if isinstance(cause, KGRetrieverError):
            return cause
    return None


class KGModel(BaseModel):
    """A pydantic model whose validators' kg-retrievers errors leave construction unwrapped."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().__init__(*args, **kwargs)
        except ValidationError as err:
            cause = kg_error_of(err)
            if cause is None:
                raise
            raise cause from err
