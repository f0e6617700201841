"""The pydantic base of the LangChain adapters' objects: construction raises kg-retrievers
errors as they are (:class:`KGModel`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from kgcore.builder.catalogue import METHODS, method_options
from kgcore.builder.settings import unknown_names
from kgcore.exceptions import ConfigurationError, KGRetrieverError

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


#: What to pass for a required field, named when it is missing.
REQUIRED_HINTS = {
    "llm": "a LangChain chat model, e.g. ChatOpenAI(model=...), or "
    "langchain_fasttog.resolve_chat_model('local') for the offline local model",
    "graph": "a graph store, e.g. kgcore.graph.open_store('kb.txt'), "
    "InMemoryGraphStore.from_triples([...]) or Neo4jGraphStore(uri=...)",
}


class KGModel(BaseModel):
    """A pydantic model whose validators' kg-retrievers errors leave construction unwrapped,
    and whose construction names a misspelt setting's closest name and what a missing
    required one takes (:class:`~kgcore.exceptions.ConfigurationError`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().__init__(*args, **kwargs)
        except ValidationError as err:
            cause = kg_error_of(err) or _named_error(type(self), err)
            if cause is None:
                raise
            raise cause from err


def _named_error(model: type[BaseModel], error: ValidationError) -> ConfigurationError | None:
    """A clear error for an unknown setting (its closest names) or a missing required one
    (what it takes), from pydantic's ``extra_forbidden`` and ``missing`` errors."""
    fields = model.model_fields
    unknown = sorted(str(d["loc"][0]) for d in error.errors() if d["type"] == "extra_forbidden")
    if unknown:
        names = set(fields)
        method = fields["method"].default if "method" in fields else None
        if ("config" in fields or "options" in fields) and method in METHODS:  # flat settings
            names |= method_options(method)
        return ConfigurationError(
            f"{model.__name__} has no setting {unknown_names(unknown, names)} "
            f"(it takes {', '.join(sorted(fields))})"
        )
    missing = [str(d["loc"][0]) for d in error.errors() if d["type"] == "missing" and d["loc"]]
    if missing:
        name = missing[0]
        what = REQUIRED_HINTS.get(name, f"a value for {name}")
        return ConfigurationError(f"{model.__name__} needs {name}=: {what}")
    return None
