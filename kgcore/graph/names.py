"""Node-name matching shared by every graph store: normalisation and ranking.

Example
-------
>>> normalize_name("The  Matrix ")
'the matrix'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rapidfuzz import fuzz, process

_SPACES = re.compile(r"\s+")
#: Characters of a query used for fuzzy ranking: WRatio's cost grows with the query's length,
#: and a longer query cannot match a node name well anyway (MetaQA's longest name has 79).
FUZZY_QUERY_CHARS = 96
#: Names kept by each cheap prefilter before ``WRatio`` ranks them (see :func:`rank_names`).
PREFILTER = 100


def normalize_name(name: str) -> str:
    """Case- and spacing-insensitive form of a name (``"The  Matrix"`` -> ``"the matrix"``)."""
    return _SPACES.sub(" ", name).strip().casefold()


def rank_names(
    text: str, by_normal: Mapping[str, Sequence[str]], names: Sequence[str], limit: int
) -> list[str]:
    """Rank candidate node names against ``text`` (every store uses this order).

    The exact name first, then names equal after :func:`normalize_name`,
    then fuzzy matches by rapidfuzz's ``WRatio``. ``WRatio`` over every name costs about
    0.2 s on MetaQA's 43k names (it tries partial and token alignments), and a model reply
    may name several entities, so it ranks only a shortlist: the :data:`PREFILTER` best names
    by ``QRatio`` (whole-string similarity) and by ``token_sort_ratio`` (reordered words),
    both an order of magnitude cheaper. A name no prefilter ranks near the top is not one a
    strict link would accept anyway (linking needs a ``ratio`` of 90).

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
