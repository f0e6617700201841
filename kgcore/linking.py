"""Entity linking: from a question to nodes of the graph.

A bracketed topic entity (MetaQA style, ``what films did [Ridley Scott] direct``) or entities
given by the caller are used as they are; otherwise the LLM extracts entities (FastToG's first
step) and each is matched to a node exactly, then ignoring case and spacing, then ignoring
punctuation, then fuzzily. A fuzzy link needs a strict similarity (:data:`FUZZY_THRESHOLD`,
rapidfuzz's plain ``ratio``, which does not reward substrings the way ``WRatio`` does: ``asdf``
is not ``f``) and a clear margin (:data:`FUZZY_MARGIN`) over the runner-up; otherwise
:class:`~kgcore.exceptions.EntityNotFoundError` is raised listing the closest names.
:func:`link_entity_details` says how a name was linked (:class:`EntityLink`).

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("The Matrix", "directed_by", "Lana Wachowski")])
>>> bracketed_entities("who directed [the  matrix]?")
['the  matrix']
>>> link_entity(store, "the  matrix")
'The Matrix'
>>> link_entity_details(store, "The Matrix.").method
'punctuation'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from rapidfuzz import fuzz

from kgcore.exceptions import EntityNotFoundError
from kgcore.graph.names import normalize_name
from kgcore.graph.store import GraphStore
from kgcore.llm.protocol import LLMRequest
from kgcore.validation import BRACKETED, MAX_TOPIC_ENTITIES, cap_names

_PUNCTUATION = re.compile(r"[^\w\s]")
#: Fuzzy links need at least this rapidfuzz ``ratio`` (0-100) between normalised names.
FUZZY_THRESHOLD = 90.0
#: ... and this many points more than the second-best candidate.
FUZZY_MARGIN = 5.0
#: Candidates the store is asked for before rescoring.
CANDIDATES = 10

LinkMethod = Literal["exact", "normalized", "punctuation", "fuzzy"]


@dataclass(frozen=True)
class EntityLink:
    """How a mention was linked: the node, the rule that matched and its score (0-100).

    Example
    -------
    >>> EntityLink("the matrix", "The Matrix", "normalized", 100.0).to_dict()["node"]
    'The Matrix'
    """

    mention: str
    node: str
    method: LinkMethod
    score: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _loose(name: str) -> str:
    return " ".join(_PUNCTUATION.sub(" ", normalize_name(name)).split())


def bracketed_entities(question: str) -> list[str]:
    """Names written in square brackets in the question (at most ``MAX_TOPIC_ENTITIES``)."""
    return cap_names((m.strip() for m in BRACKETED.findall(question)), MAX_TOPIC_ENTITIES)


def link_entity_details(
    store: GraphStore,
    name: str,
    threshold: float = FUZZY_THRESHOLD,
    margin: float = FUZZY_MARGIN,
) -> EntityLink:
    """Link ``name`` and say how: exact, normalised, without punctuation, or strictly fuzzy.

    Raises
    ------
    EntityNotFoundError
        When no node matches exactly and no fuzzy candidate reaches ``threshold`` with
        ``margin`` points over the runner-up; the error lists the closest names.
    """
    if store.has_node(name):
        return EntityLink(name, name, "exact", 100.0)
    candidates = store.search_nodes(name, limit=CANDIDATES)
    key = normalize_name(name)
    for candidate in candidates:
        if normalize_name(candidate) == key:
            return EntityLink(name, candidate, "normalized", 100.0)
    loose = _loose(name)
    for candidate in candidates:
        if loose and _loose(candidate) == loose:
            return EntityLink(name, candidate, "punctuation", 100.0)
    # Best score first; ties keep the store's ranking (a stable sort), never set order.
    scored = sorted(
        ((fuzz.ratio(loose, _loose(c)), c) for c in candidates), key=lambda item: -item[0]
    )
    if scored:
        best, node = scored[0]
        runner_up = scored[1][0] if len(scored) > 1 else 0.0
        if best >= threshold and best - runner_up >= margin:
            return EntityLink(name, node, "fuzzy", round(float(best), 1))
    raise EntityNotFoundError(name, [c for _, c in scored[:5]] or candidates[:5])


def link_entity(store: GraphStore, name: str, threshold: float = FUZZY_THRESHOLD) -> str:
    """The node ``name`` refers to (see :func:`link_entity_details`)."""
    return link_entity_details(store, name, threshold).node


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
        f"Question: {question}\nList the named entities (people, places, organisations, works, "
        'things) in the question as a JSON list of strings, e.g. ["Ada Lovelace"]. Reply with '
        "the list only.",
        purpose="extract_entities",
        temperature=temperature,
        max_tokens=64,
    )
