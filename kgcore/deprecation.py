"""The warning category of kg-retrievers' deprecations.

A name or argument that is going away warns with :class:`KGRetrieverDeprecationWarning` (a
``DeprecationWarning``) whose message names its successor. The test suite turns this category
into an error, so no code of the project uses a deprecated name or argument.

Example
-------
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warnings.warn("old is deprecated; use new", KGRetrieverDeprecationWarning, stacklevel=1)
>>> caught[0].category.__name__, issubclass(caught[0].category, DeprecationWarning)
('KGRetrieverDeprecationWarning', True)
"""

from __future__ import annotations

__all__ = ["KGRetrieverDeprecationWarning"]


class KGRetrieverDeprecationWarning(DeprecationWarning):
    """The warning category for future deprecations of kg-retrievers: a name or argument that is
    going away; the message names its successor."""
