"""A question whose answer set is longer than a text shows ("Leads to: A; B; C; D; E (8 in
all)"): eight films with Jane Seymour, each with its own director (issue 66)."""

from __future__ import annotations

from kgcore.methods.fasttog import FastToGResult

FILMS = [f"Film {i}" for i in range(8)]
DIRECTORS = [f"Director {c}" for c in "ABCDEFGH"]
TRIPLES = (
    [(film, "starred_actors", "Jane Seymour") for film in FILMS]
    + [(film, "directed_by", d) for film, d in zip(FILMS, DIRECTORS, strict=True)]
    + [(film, "release_year", str(1990 + i)) for i, film in enumerate(FILMS)]
)
QUESTION = "which person directed the films acted by [Jane Seymour]"
LABEL = "starred actors of / directed by"


def five_of_eight() -> FastToGResult:
    """A result whose reader named five of the eight directors its followed path reached."""
    return FastToGResult(
        question=QUESTION,
        answer="; ".join(DIRECTORS[:5]),
        method="fasttog",
        topic_entities=["Jane Seymour"],
        extra={"reached": [{"label": LABEL, "answers": list(DIRECTORS)}]},
    )
