"""How ``kgqa`` prints its help and version: each option's default once, and only when there is
one.

``argparse.ArgumentDefaultsHelpFormatter`` appends ``(default: ...)`` to every option: to flags
(``(default: False)``), to options without a default (``(default: None)``, ``(default: [])``)
and to options whose help already names the default. :class:`DefaultsHelpFormatter` appends it
only where it tells the reader something.

Example
-------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="x", formatter_class=DefaultsHelpFormatter)
>>> _ = parser.add_argument("--n", type=int, default=3, help="how many")
>>> _ = parser.add_argument("--kg", help="graph (default: the dataset's)")
>>> _ = parser.add_argument("--quiet", action="store_true", help="say nothing")
>>> text = parser.format_help()
>>> "how many (default: 3)" in text, "(default: None)" in text, "(default: False)" in text
(True, False, False)
"""

from __future__ import annotations

import argparse
from importlib.metadata import PackageNotFoundError, version

#: The distribution whose version ``kgqa --version`` prints.
DISTRIBUTION = "kg-retrievers"


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Append ``(default: X)`` to an option's help when it has a default worth printing.

    Nothing is appended when the default is None, False, an empty list, ``argparse.SUPPRESS``,
    or when the help already says ``default`` (or uses ``%(default)s``).
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        if text is None or "default" in text.lower():
            return text
        default = action.default
        if default is None or default is False or default == [] or default == argparse.SUPPRESS:
            return text
        if not action.option_strings and action.nargs not in (argparse.OPTIONAL,):
            return text  # a required positional: its default means nothing
        return f"{text} (default: %(default)s)"


def package_version() -> str:
    """The installed kg-retrievers version (``unknown`` when run from a checkout that was
    never installed).

    >>> isinstance(package_version(), str)
    True
    """
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown (not installed)"
