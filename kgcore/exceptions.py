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


class ConfigurationError(KGRetrieverError):
    """A setting, file or optional dependency is missing or wrong."""


class GraphLoadError(KGRetrieverError):
    """A triple file could not be read."""


class EmptyGraphError(KGRetrieverError):
    """The knowledge graph has no triples."""


class InvalidQuestionError(KGRetrieverError, ValueError):
    """The question is empty or not a string."""


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
    """An LLM reply could not be used even after a retry."""


class GraphStoreError(KGRetrieverError):
    """A graph store (for example a Neo4j server) failed or could not be reached."""


class EmbeddingError(KGRetrieverError):
    """Embeddings are missing or do not match the graph."""


class MissingDependencyError(ConfigurationError, ImportError):
    """An optional dependency is needed; the message names the extra that installs it."""

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"{package!r} is required for this feature: pip install 'kg-retrievers[{extra}]'"
        )
