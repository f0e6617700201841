"""Entity linking: from a question to nodes of the graph.

A bracketed topic entity (MetaQA style, ``what films did [Ridley Scott] direct``) or entities
given by the caller are used as they are; otherwise the LLM extracts entities (FastToG's first
step) and each is matched to a node exactly, then ignoring case and spacing, then fuzzily
(rapidfuzz). No match raises :class:`~kgcore.exceptions.EntityNotFoundError` listing the
closest names.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("The Matrix", "directed_by", "Lana Wachowski")])
>>> bracketed_entities("who directed [the  matrix]?")
['the  matrix']
>>> link_entity(store, "the  matrix")
'The Matrix'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz

from kgcore.exceptions import EntityNotFoundError
from kgcore.graph.names import normalize_name
from kgcore.graph.store import GraphStore
from kgcore.llm.protocol import LLMRequest
from kgcore.validation import MAX_TOPIC_ENTITIES, cap_names

_BRACKETED = re.compile(r"\[([^\[\]]+)\]")
#: Fuzzy matches below this rapidfuzz WRatio score (0-100) are refused.
FUZZY_THRESHOLD = 88.0


def bracketed_entities(question: str) -> list[str]:
    """Names written in square brackets in the question (at most ``MAX_TOPIC_ENTITIES``)."""
    return cap_names((m.strip() for m in _BRACKETED.findall(question)), MAX_TOPIC_ENTITIES)


def link_entity(store: GraphStore, name: str, threshold: float = FUZZY_THRESHOLD) -> str:
    """The node ``name`` refers to: exact, then case/spacing-insensitive, then fuzzy."""
    if store.has_node(name):
        return name
    candidates = store.search_nodes(name, limit=5)
    key = normalize_name(name)
    for candidate in candidates:
        if normalize_name(candidate) == key:
            return candidate
    scored = sorted(
        ((fuzz.WRatio(key, normalize_name(c)), c) for c in candidates), key=lambda s: -s[0]
    )
    if scored and scored[0][0] >= threshold:
        return scored[0][1]
    raise EntityNotFoundError(name, candidates)


def link_entities(store: GraphStore, names: Iterable[str], strict: bool = True) -> list[str]:
    """Link several names; with ``strict=False`` unlinkable names are skipped unless all fail."""
    linked: list[str] = []
    first_error: EntityNotFoundError | None = None
    for name in names:
        try:
            node = link_entity(store, name)
        except EntityNotFoundError as err:
            if strict:
                raise
            first_error = first_error or err
            continue
        if node not in linked:
            linked.append(node)
    if not linked and first_error is not None:
        raise first_error
    return linked


def entity_extraction_request(question: str, temperature: float = 0.0) -> LLMRequest:
    """Ask the LLM for the entities of a question, as a JSON list."""
    return LLMRequest.from_prompt(
        f"Question: {question}\nList the named entities (people, films, places, things) in the "
        'question as a JSON list of strings, e.g. ["Titanic"]. Reply with the list only.',
        purpose="extract_entities",
        temperature=temperature,
        max_tokens=64,
    )
