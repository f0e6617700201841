"""Every error raised by kg-retrievers, in one module.

All derive from :class:`KGRetrieverError`, so callers can catch the family at once.

Example
-------
>>> from kgcore.exceptions import KGRetrieverError, EntityNotFoundError
>>> issubclass(EntityNotFoundError, KGRetrieverError)
True
"""

from __future__ import annotations

from collections.abc import Sequence


class KGRetrieverError(Exception):
    """Base class of every error raised by this project."""


class ConfigurationError(KGRetrieverError, ValueError):
    """A setting, file or optional dependency is missing or wrong.

    Also a :class:`ValueError`, so code that validates arguments the standard way (and pydantic
    validators, which turn a ``ValueError`` into a validation error) catches it.
    """


class InvalidSettingError(ConfigurationError):
    """A setting is outside its documented range (every cost-scaling setting has a maximum)."""


class GraphLoadError(KGRetrieverError):
    """A triple file could not be read."""


class EmptyGraphError(KGRetrieverError):
    """The knowledge graph has no triples."""


class InvalidQuestionError(KGRetrieverError, ValueError):
    """The question (or its topic entities) is empty, not a string, or over a limit."""


class EntityNotFoundError(KGRetrieverError, LookupError):
    """A name could not be linked to any node of the graph.

    The message lists the closest node names, so a typo is easy to fix.
    """

    def __init__(self, name: str, suggestions: Sequence[str] = ()) -> None:
        self.name = name
        self.suggestions = list(suggestions)
        hint = (
            f"; closest names: {', '.join(repr(s) for s in self.suggestions)}"
            if suggestions
            else ""
        )
        super().__init__(f"entity {name!r} is not in the knowledge graph{hint}")


class LLMResponseError(KGRetrieverError):
    """An LLM call failed (after its retries) or its reply could not be used.

    ``step`` names the method's step (the request's ``purpose``) when known.
    """

    def __init__(self, message: str, step: str | None = None) -> None:
        super().__init__(message)
        self.step = step


class GraphStoreError(KGRetrieverError):
    """A graph store (for example a Neo4j server) failed, timed out or could not be reached."""


class RunLockedError(ConfigurationError):
    """Another evaluation process holds the output folder's lock."""


class EmbeddingError(KGRetrieverError):
    """Embeddings are missing or do not match the graph."""


class MissingDependencyError(ConfigurationError, ImportError):
    """An optional dependency is needed; the message names the extra that installs it
    (``None``: a dependency of the package itself, which a plain install brings back)."""

    def __init__(self, package: str, extra: str | None) -> None:
        where = f"kg-retrievers[{extra}]" if extra else "kg-retrievers"
        super().__init__(f"{package!r} is required for this feature: pip install '{where}'")


class OutputWriteError(KGRetrieverError, OSError):
    """A result (a trace record, a summary, a list of ids) could not be written: the disk is
    full, the folder is read-only, ... Nothing half-written is left behind; the message names
    the file and the reason."""
