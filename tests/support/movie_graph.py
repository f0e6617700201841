"""The small movie graphs of the test suite, defined once.

``MOVIE_TRIPLES`` is the graph behind the ``movie_store`` fixture: three films by Joseph L.
Mankiewicz, Elizabeth Taylor's films, two films by George Stevens and three films of 1963, so
that FastToG, ToG and CGPE find communities, shared neighbours and more than one hop.
``GRETRIEVER_MOVIE_TRIPLES`` is the smaller graph behind ``movie_triples``, the one the
G-Retriever tests embed: few enough texts that every node and edge shows in a retrieved
subgraph. The LlamaIndex adapter tests use it without its two attribute triples
(``LLAMAINDEX_MOVIE_TRIPLES``): they add "Giant release_year 1956" themselves, and expect
"George Stevens" and "Shane" alone around Shane.

Examples
--------
>>> from kgcore.graph import InMemoryGraphStore
>>> InMemoryGraphStore.from_triples(MOVIE_TRIPLES).num_triples()
13
>>> len({n for h, _, t in GRETRIEVER_MOVIE_TRIPLES for n in (h, t)})
9
>>> len(LLAMAINDEX_MOVIE_TRIPLES)
6
"""

from __future__ import annotations

from kgcore.types import Triple

MOVIE_TRIPLES: tuple[Triple, ...] = (
    Triple("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    Triple("Cleopatra", "starred_actors", "Elizabeth Taylor"),
    Triple("Cleopatra", "release_year", "1963"),
    Triple("All About Eve", "directed_by", "Joseph L. Mankiewicz"),
    Triple("All About Eve", "starred_actors", "Bette Davis"),
    Triple("Guys and Dolls", "directed_by", "Joseph L. Mankiewicz"),
    Triple("Guys and Dolls", "starred_actors", "Marlon Brando"),
    Triple("Giant", "starred_actors", "Elizabeth Taylor"),
    Triple("Giant", "directed_by", "George Stevens"),
    Triple("Butterfield 8", "starred_actors", "Elizabeth Taylor"),
    Triple("Shane", "directed_by", "George Stevens"),
    Triple("The Great Escape", "release_year", "1963"),
    Triple("Charade", "release_year", "1963"),
)

GRETRIEVER_MOVIE_TRIPLES: tuple[tuple[str, str, str], ...] = (
    ("Cleopatra", "directed_by", "Joseph L. Mankiewicz"),
    ("Cleopatra", "release_year", "1963"),
    ("Cleopatra", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "starred_actors", "Elizabeth Taylor"),
    ("Giant", "directed_by", "George Stevens"),
    ("Giant", "release_year", "1956"),
    ("Shane", "directed_by", "George Stevens"),
    ("Shane", "has_genre", "Western"),
)

LLAMAINDEX_MOVIE_TRIPLES: tuple[tuple[str, str, str], ...] = tuple(
    t
    for t in GRETRIEVER_MOVIE_TRIPLES
    if t not in {("Giant", "release_year", "1956"), ("Shane", "has_genre", "Western")}
)

#: The films the many-users tests ask about ("who directed [film]"), and what their scripted
#: model answers: a cross-talk between concurrent questions would give one another's answer.
ASKED_FILMS = ("Cleopatra", "Giant", "Shane", "Charade", "All About Eve", "Guys and Dolls")
DIRECTOR_QUESTIONS = [f"who directed [{film}]" for film in ASKED_FILMS]
SCRIPTED_DIRECTORS = {
    "Giant": "George Stevens",
    "Shane": "George Stevens",
    "All About Eve": "Joseph L. Mankiewicz",
    "Guys and Dolls": "Joseph L. Mankiewicz",
}


def scripted_director_reply(prompt: str, prune: bool) -> str:
    """A stateless script: pruning (``prune``) takes option 1, reasoning names the asked film's
    director from :data:`SCRIPTED_DIRECTORS` (``Unknown`` for the others: their chains grow)."""
    if prune:
        return "{1}"
    asked = prompt.split("Question:")[-1]
    film = next((f for f in ASKED_FILMS if f"[{f}]" in asked), "")
    return "{" + SCRIPTED_DIRECTORS.get(film, "Unknown") + "}"
