"""Node names shared by every graph store: the check of a triple's names, normalisation and
ranking.

Example
-------
>>> normalize_name("The  Matrix ")
'the matrix'
>>> check_triple(("Heat", "directed_by", "Michael Mann"))
Triple(head='Heat', relation='directed_by', tail='Michael Mann')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from rapidfuzz import fuzz, process

from kgcore.exceptions import GraphLoadError
from kgcore.types import Triple
from kgcore.validation import NAME_BAD_CHARS, NAME_JOINERS, name_problem

_SPACES = re.compile(r"\s+")
_JOINERS = str.maketrans("", "", "".join(sorted(NAME_JOINERS)))
#: Characters of a query used for fuzzy ranking: WRatio's cost grows with the query's length,
#: and a longer query cannot match a node name well anyway (MetaQA's longest name has 79).
FUZZY_QUERY_CHARS = 96
#: Names kept by each cheap prefilter before ``WRatio`` ranks them (see :func:`rank_names`).
PREFILTER = 100


_FIELDS = ("head", "relation", "tail")


def check_triple(item: Any) -> Triple:
    """``item`` as a :class:`~kgcore.types.Triple` of three names, or a
    :class:`~kgcore.exceptions.GraphLoadError` saying what is wrong.

    ``item`` is a sequence of exactly three strings (a tuple, a list, a ``Triple``); a string
    (``"abc"``) or a mapping is not unpacked. Each name has a non-blank character and no
    control character, line separator or lone surrogate (:func:`kgcore.validation.name_problem`;
    node names have no length limit).

    >>> check_triple(["Heat", "year", None])
    Traceback (most recent call last):
    ...
    kgcore.exceptions.GraphLoadError: the tail must be a string, got NoneType
    >>> check_triple("abc")
    Traceback (most recent call last):
    ...
    kgcore.exceptions.GraphLoadError: a triple must be a (head, relation, tail) sequence, got str
    """
    if type(item) in (Triple, tuple, list) and len(item) == 3:  # the common case, checked fast
        head, relation, tail = item
        if (
            type(head) is str
            and type(relation) is str
            and type(tail) is str
            and head.strip()
            and relation.strip()
            and tail.strip()
            and NAME_BAD_CHARS.search(head + relation + tail) is None
        ):
            return item if type(item) is Triple else Triple(head, relation, tail)
    if isinstance(item, (str, bytes, bytearray, Mapping)) or not isinstance(item, Iterable):
        raise GraphLoadError(
            f"a triple must be a (head, relation, tail) sequence, got {type(item).__name__}"
        )
    fields = tuple(item)
    if len(fields) != 3:
        raise GraphLoadError(f"a triple has 3 fields (head, relation, tail), got {len(fields)}")
    for role, name in zip(_FIELDS, fields, strict=True):
        problem = name_problem(name, max_chars=None)
        if problem is not None:
            shown = f" {name[:40]!r}" if isinstance(name, str) and name.strip() else ""
            raise GraphLoadError(f"the {role}{shown} {problem}")
    return item if type(item) is Triple else Triple(*fields)


def check_triples(triples: Any) -> Iterator[Triple]:
    """:func:`check_triple` over ``triples``, an iterable of triples (not a string or a
    mapping, which would unpack into bogus triples); an error names the triple's position.

    >>> list(check_triples({"head": "Heat"}))
    Traceback (most recent call last):
    ...
    kgcore.exceptions.GraphLoadError: triples must be an iterable of (head, relation, tail) ...
    """
    if isinstance(triples, (str, bytes, bytearray, Mapping)) or not isinstance(triples, Iterable):
        raise GraphLoadError(
            "triples must be an iterable of (head, relation, tail) sequences, got "
            f"{type(triples).__name__}"
        )
    for number, item in enumerate(triples, start=1):
        try:
            yield check_triple(item)
        except GraphLoadError as err:
            raise GraphLoadError(f"triple {number}: {err}") from None


def normalize_name(name: str) -> str:
    """Case- and spacing-insensitive form of a name (``"The  Matrix"`` -> ``"the matrix"``),
    without soft hyphens and zero-width (non-)joiners (``kgcore.validation.NAME_JOINERS``).

    >>> normalize_name("Bey\\u00adonce") == normalize_name("beyonce")
    True
    """
    return _SPACES.sub(" ", name.translate(_JOINERS)).strip().casefold()


def rank_names(
    text: str, by_normal: Mapping[str, Sequence[str]], names: Sequence[str], limit: int
) -> list[str]:
    """Rank candidate node names against ``text`` (every store uses this order).

    The exact name first, then names equal after :func:`normalize_name`,
    then fuzzy matches by rapidfuzz's ``WRatio``. ``WRatio`` over every name is slow on a
    large graph (it tries partial and token alignments), and a model reply may name several
    entities, so it ranks only a shortlist: the :data:`PREFILTER` best names by ``QRatio``
    (whole-string similarity) and by ``token_sort_ratio`` (reordered words), both far cheaper
    (the timings: ``docs/research/code_measurements.md#name-ranking``). A name no prefilter
    ranks near the top is not one a strict link would accept anyway (linking needs a
    ``ratio`` of 90).

    Parameters
    ----------
    text : str
        What to look for.
    by_normal : mapping
        Normalised name -> original names.
    names : sequence of str
        The normalised names, in tie-breaking order.
    limit : int
        How many names to return.

    Example
    -------
    >>> rank_names("the matrix", {"the matrix": ["The Matrix"]}, ["the matrix"], 3)
    ['The Matrix']
    """
    exact = [text] if text in by_normal.get(normalize_name(text), ()) else []
    found = exact + [n for n in by_normal.get(normalize_name(text), []) if n not in exact]
    if len(found) >= limit:
        return found[:limit]
    query = normalize_name(text)[:FUZZY_QUERY_CHARS]
    # rapidfuzz does the fuzzy ranking; WRatio copes with partial and reordered names.
    shortlist: set[int] = set()
    for scorer in (fuzz.QRatio, fuzz.token_sort_ratio):
        for _key, _score, index in process.extract(query, names, scorer=scorer, limit=PREFILTER):
            shortlist.add(index)
    for key, _score, _ in process.extract(
        query,
        [names[i] for i in sorted(shortlist)],  # in ``names`` order, so ties break as documented
        scorer=fuzz.WRatio,
        limit=limit + len(found),
    ):
        for node in by_normal[key]:
            if node not in found:
                found.append(node)
    return found[:limit]
