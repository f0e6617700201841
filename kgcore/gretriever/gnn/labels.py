"""Read a label out of a model's reply: the first known label word, else ``"unparseable"``.

A reply is untrusted: only its first :data:`MAX_LABEL_REPLY_CHARS` characters are read, and any
input (even a non-string) gives a label or :data:`UNPARSEABLE`, never an exception.

Example
-------
>>> parse_label(" Support. The arguments agree", ("support", "counter"))
'support'
>>> parse_label("I cannot tell", ("support", "counter"))
'unparseable'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

UNPARSEABLE = "unparseable"
MAX_LABEL_REPLY_CHARS = 400
EXPLAGRAPHS_LABELS: tuple[str, ...] = ("support", "counter")
_WORD = re.compile(r"[a-z]+")


def parse_label(reply: object, labels: Sequence[str] = EXPLAGRAPHS_LABELS) -> str:
    """The label word that comes first in ``reply`` (case-insensitive), or ``"unparseable"``.

    Example
    -------
    >>> parse_label("counter-argument", ("support", "counter"))
    'counter'
    >>> parse_label(None)
    'unparseable'
    """
    if not isinstance(reply, str):
        return UNPARSEABLE
    wanted = {label.lower(): label for label in labels}
    for word in _WORD.findall(reply[:MAX_LABEL_REPLY_CHARS].lower()):
        if word in wanted:
            return wanted[word]
        # "supports", "countering": a label followed by an inflection still counts.
        for key, label in wanted.items():
            if word.startswith(key) and len(word) - len(key) <= 3:
                return label
    return UNPARSEABLE
