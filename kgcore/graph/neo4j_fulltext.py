"""Full-text name search on a Bolt server: the query terms of a name, their spellings one edit
away, and the candidates of the server's full-text index, ranked as linking wants them
(:meth:`~kgcore.graph.neo4j_store.Neo4jGraphStore.fulltext_names`, ``name_search="fulltext"``).

A name's words are asked for as exact terms, cut as the index's standard tokenizer cuts them,
so no Lucene operator or field of the text reaches a query; each query keeps the index's
best-scored :data:`FULLTEXT_CANDIDATES` names, ranked closest in length to the name first.
How this was decided and what it costs as the graph grows: ``docs/neo4j.md`` ("Entity linking
in the database", "How the costs grow").

Example
-------
>>> def read(kind, query, cap):  # one record: the index's [name, score] pairs
...     print(kind, query.split()[:3])
...     return [[[["Jane Seymour", 2.0], ["Jane", 3.0], ["Jane Seymour Fonda", 2.5]]]]
>>> fulltext_names(read, "Jane Seymor")
fulltext ['jane', 'seymor']
fulltext_variants ['seymor', 'esymor', 'syemor']
['Jane Seymour', 'Jane', 'Jane Seymour Fonda']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from kgcore.graph.names import normalize_name

__all__ = [
    "FULLTEXT_CANDIDATES",
    "FULLTEXT_QUERY_CHARS",
    "FULLTEXT_QUERY_WORDS",
    "FULLTEXT_VARIANT_TERMS",
    "VARIANT_ALPHABET",
    "case_forms",
    "closest_in_length",
    "fulltext_names",
    "fulltext_words",
    "loose_words",
    "spelling_variants",
    "variants_query",
]

#: Candidates each full-text query returns: the index's best-scored names (the server reads
#: the names of these only), then ranked like the in-memory store's, closest in length first (a
#: fuzzy link's rivals are of about its length; how often links agree with the in-memory
#: store's: ``docs/neo4j.md``, "How the costs grow").
FULLTEXT_CANDIDATES = 200
#: Characters and words of a name read into a full-text query.
FULLTEXT_QUERY_CHARS = 200
FULLTEXT_QUERY_WORDS = 12
#: The most spelling variants (exact terms) one full-text query asks for: Lucene refuses a
#: query of more than 1,024 clauses.
FULLTEXT_VARIANT_TERMS = 1000
#: Letters inserted and substituted by :func:`spelling_variants`.
VARIANT_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"

#: Runs one full-text query on the server: ``(query name, query text, cap) -> records``, the
#: first record's first value a list of ``[name, score]`` pairs.
FulltextRead = Callable[[str, str, int], list[Any]]


def fulltext_names(read: FulltextRead, text: str, cap: int = 0) -> list[str]:
    """The names the full-text index finds for ``text``: the index's best-scored ``cap``
    per query (by default :data:`FULLTEXT_CANDIDATES`), closest in length first, then by
    score; ``read`` runs a query (``"fulltext"`` or ``"fulltext_variants"``) on the server.

    The words of ``text`` are asked for as exact terms (an index look-up each). Unless a
    name found has the same words (linking takes it), a second query asks for the words
    no name found holds and their spellings one edit away (:func:`spelling_variants`;
    those of every word of three letters or more when names hold them all), again as
    exact terms. The second query leaves out the held words: the names that hold them
    came with the first query, and asking for them again read each one's entries twice
    (a common word's entries grow with the graph). The index's own fuzzy terms
    (``word~``) are not used: a server may answer them by reading its whole index
    (ArcadeDB does), a cost that grows with the graph.
    """
    words = fulltext_words(text)
    if not words:
        return []
    cap = int(cap or FULLTEXT_CANDIDATES)
    found = closest_in_length(read("fulltext", " ".join(words), cap), text)
    if loose_words(text) in {loose_words(name) for name in found}:
        return found  # the same words: linking takes it before any fuzzy candidate
    held = {word for name in found for word in fulltext_words(name)}
    # The variants of the words no name found holds (the misspelt ones); when names hold
    # every word, those of the held words (a name one edit from a real word, "Trick" for
    # "Tricks", is a candidate too). A held word's variants are common words whose
    # entries grow with the graph ("jane" -> "jade", "lane", "june").
    spelt = [word for word in dict.fromkeys(words) if len(word) >= 3]
    missing = [w for w in spelt if w not in held] or spelt
    if missing:
        query = variants_query(missing, missing)
        found += closest_in_length(read("fulltext_variants", query, cap), text)
    return list(dict.fromkeys(found))


def closest_in_length(rows: list[Any], text: str) -> list[str]:
    """The names of one full-text query's records (``rows``), closest in length to ``text``
    first, then by score; a malformed reply gives none.

    >>> closest_in_length([[[["Tom Hanks", 1.0], ["Tom", 5.0], ["Tim Hanks", 2.0]]]], "Tom Hank")
    ['Tim Hanks', 'Tom Hanks', 'Tom']
    >>> closest_in_length([["not pairs"]], "Tom")
    []
    """
    pairs = rows[0][0] if rows and rows[0] and isinstance(rows[0][0], list) else []
    length = len(" ".join(str(text).split()))
    ranked = sorted(
        (abs(len(pair[0]) - length), -float(pair[1]), pair[0])
        for pair in pairs
        if isinstance(pair, list | tuple)
        and len(pair) == 2
        and isinstance(pair[0], str)
        and isinstance(pair[1], int | float)
    )
    return list(dict.fromkeys(name for _, _, name in ranked))


#: A full-text term as Lucene's standard tokenizer (Unicode word boundaries, UAX #29) cuts
#: it, the tokenizer of Neo4j's default analyzer and of ArcadeDB's: letters joined across an
#: apostrophe or a full stop, digits across a full stop or a comma.
_TERM = re.compile(r"\w+(?:(?:(?<=[^\W\d_])['\u2019.](?=[^\W\d_])|(?<=\d)[.,](?=\d))\w+)*")


def case_forms(text: str) -> list[str]:
    """The spellings of a name that differ from it only in case, looked up exactly.

    >>> case_forms("the matrix")
    ['the matrix', 'THE MATRIX', 'The Matrix', 'The matrix']
    """
    trimmed = " ".join(str(text).split())[:FULLTEXT_QUERY_CHARS]
    forms = [str(text), trimmed, trimmed.lower(), trimmed.upper(), trimmed.title()]
    forms.append(trimmed[:1].upper() + trimmed[1:].lower())
    return list(dict.fromkeys(form for form in forms if form))


def fulltext_words(text: str) -> list[str]:
    """The words of a name as full-text terms, as the index's standard tokenizer cuts them:
    word characters, and an apostrophe or a full stop between two letters (``o'malley``,
    ``h.g``) or a full stop or comma between two digits; lower-cased, at most
    :data:`FULLTEXT_QUERY_WORDS` (no Lucene operator or field of the text reaches a query).

    >>> fulltext_words('Cleopatre (1963) a" OR name:*')
    ['cleopatre', '1963', 'a', 'or', 'name']
    >>> fulltext_words("David O'Malley, H.G. Wells' 2.5 x-men")
    ['david', "o'malley", 'h.g', 'wells', '2.5', 'x', 'men']
    """
    words = _TERM.findall(normalize_name(str(text))[:FULLTEXT_QUERY_CHARS])
    return words[:FULLTEXT_QUERY_WORDS]


def loose_words(text: str) -> str:
    """A name's words, lower-cased, without punctuation (linking's loose form).

    >>> loose_words("The Matrix!")
    'the matrix'
    """
    return " ".join(re.findall(r"\w+", normalize_name(str(text))))


def spelling_variants(word: str) -> list[str]:
    """The spellings one edit away from ``word``: two neighbouring letters swapped, a letter
    left out, changed or added (letters of :data:`VARIANT_ALPHABET`), in that order.

    >>> spelling_variants("ab")[:4]
    ['ba', 'b', 'a', 'bb']
    >>> "bond" in spelling_variants("obnd") and "bonds" in spelling_variants("bond")
    True
    """
    swaps = [word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)]
    deletions = [word[:i] + word[i + 1 :] for i in range(len(word))]
    changes = [word[:i] + c + word[i + 1 :] for i in range(len(word)) for c in VARIANT_ALPHABET]
    additions = [word[:i] + c + word[i:] for i in range(len(word) + 1) for c in VARIANT_ALPHABET]
    variants = dict.fromkeys(swaps + deletions + changes + additions)
    variants.pop(word, None)
    return [v for v in variants if v]


def variants_query(words: Sequence[str], missing: Sequence[str]) -> str:
    """A full-text query of exact terms: ``words`` and the spelling variants of each of
    ``missing`` that are one term to the index (:func:`fulltext_words`), taken in turn (the
    first variants of each, then the next), at most :data:`FULLTEXT_VARIANT_TERMS` terms in
    all.

    >>> variants_query(["james", "obnd"], ["obnd"]).split()[:4]
    ['james', 'obnd', 'bond', 'onbd']
    """
    terms = dict.fromkeys(words)
    # Only spellings the index's tokenizer reads as one term ("o'd9ay" would be two): each
    # is one clause of the query, whose clauses Lucene caps at 1,024.
    pools = [[v for v in spelling_variants(word) if _TERM.fullmatch(v)] for word in missing]
    for rank in range(max(len(pool) for pool in pools)):
        for pool in pools:
            if rank < len(pool) and len(terms) < FULLTEXT_VARIANT_TERMS:
                terms[pool[rank]] = None
    return " ".join(terms)
