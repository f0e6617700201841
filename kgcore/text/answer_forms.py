"""Answer normalisation: the one form answers are compared in (votes, topic checks, scores).

Example
-------
>>> normalize_answer("The  Matrix!")
'matrix'
>>> normalize_answer("Amélie") == normalize_answer("amelie")
True
>>> normalize_answer("Bey\\u00adonce") == normalize_answer("Beyonce")  # soft hyphen dropped
True
"""

from __future__ import annotations

import re
import string
import unicodedata

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(f"[{re.escape(string.punctuation)}‘’“”–—]")
_SPACES = re.compile(r"\s+")
#: The soft hyphen and the zero-width non-joiner and joiner (``kgcore.validation.NAME_JOINERS``):
#: a name holds them or not, it is the same name.
_JOINERS = str.maketrans("", "", "\u00ad\u200c\u200d")


def normalize_answer(text: str) -> str:
    """Lower-case, strip accents, punctuation, articles, soft hyphens and zero-width
    (non-)joiners, collapse spaces.

    Example
    -------
    >>> normalize_answer("  An Ideal Husband. ")
    'ideal husband'
    """
    text = unicodedata.normalize("NFKD", str(text).translate(_JOINERS))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = _PUNCT.sub(" ", text)
    text = _ARTICLES.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def contains_answer(text: str, answer: str) -> bool:
    """Whether the normalised ``answer`` occurs in the normalised ``text`` on word boundaries.

    >>> contains_answer("released in 1963", "1963"), contains_answer("Upside Down", "Up")
    (True, False)
    """
    gold = normalize_answer(answer)
    if not gold:
        return False
    return f" {gold} " in f" {normalize_answer(text)} "
