"""Entity linking: from a question to nodes of the graph.

A bracketed topic entity (MetaQA style, ``what films did [Ridley Scott] direct``) or entities
given by the caller are used as they are; otherwise the LLM extracts entities (FastToG's first
step), or a method without a model looks for node names written in the question as they are
(:func:`names_in_question`), and each is matched to a node exactly, then ignoring case and
spacing, then ignoring punctuation, then fuzzily. A fuzzy link needs a strict similarity
(:data:`FUZZY_THRESHOLD`, rapidfuzz's plain ``ratio``, which does not reward substrings the way
``WRatio`` does: ``asdf`` is not ``f``) and a clear margin (:data:`FUZZY_MARGIN`) over the
runner-up; otherwise :class:`~kgcore.exceptions.EntityNotFoundError` is raised listing the
closest names.
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
>>> names_in_question(store, "who directed The Matrix?")
['The Matrix']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
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
#: Longest run of words looked up as one node name in a question (:func:`names_in_question`).
MAX_NAME_WORDS = 8
#: Words that are never a topic entity on their own, whatever the graph calls its nodes.
FUNCTION_WORDS = frozenset(
    "a about an and are as at be by can could did do does for from had has have he her him his "
    "how i in is it its me my no not of on or she so than that the their them then there these "
    "they this those to was we were what when where which who whom whose why will with would "
    "you your".split()
)
#: Punctuation around a word that is not part of a name (``Giant?``, ``"Carmen"``).
_EDGE_PUNCTUATION = "\"'`?!.,;:()[]{}\u201c\u201d\u2018\u2019"
_WORD_SPAN = re.compile(r"\S+")
_POSSESSIVE = re.compile(r"['\u2019]s$")

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


def _name_forms(span: str) -> list[str]:
    """A run of words as written, without the punctuation around it, and without a final
    possessive ``'s`` (``Rock Hudson's`` is also ``Rock Hudson``)."""
    bare = span.strip(_EDGE_PUNCTUATION).strip()
    forms = [span, bare, _POSSESSIVE.sub("", bare).strip(_EDGE_PUNCTUATION).strip()]
    return [form for form in dict.fromkeys(forms) if form]


def _only_function_words(words: list[str]) -> bool:
    return all(w.strip(_EDGE_PUNCTUATION).lower() in FUNCTION_WORDS for w in words)


def names_in_question(
    store: GraphStore, question: str, max_words: int = MAX_NAME_WORDS
) -> list[str]:
    """Node names written in the question exactly as the graph spells them, in order.

    Every run of up to ``max_words`` words is looked up with ``store.has_node``, as written,
    without the punctuation around it (``Giant?``) and without a possessive ``'s``. A longer
    run wins over the shorter ones inside it (``Rock Hudson`` before ``Hudson``); a run of
    function words alone (``who``, ``in the``, :data:`FUNCTION_WORDS`) is never a name. This
    asks no model and matches no misspelling: it is the first step of linking a question
    written without brackets, before a model's extraction or the strict fuzzy rule. Each
    lookup is one ``has_node`` call (at most ``max_words`` per word of the question).

    Returns
    -------
    list of str
        At most :data:`~kgcore.validation.MAX_TOPIC_ENTITIES` names, by first appearance.

    Example
    -------
    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples(
    ...     [("Giant", "starred_actors", "Rock Hudson"), ("Hudson", "r", "Who")])
    >>> names_in_question(store, "Who starred in Giant with Rock Hudson's friends?")
    ['Giant', 'Rock Hudson']
    """
    spans = [(m.start(), m.end()) for m in _WORD_SPAN.finditer(question)]
    words = [question[start:end] for start, end in spans]
    covered = [False] * len(spans)
    found: list[tuple[int, str]] = []
    for length in range(min(max_words, len(spans)), 0, -1):
        for first in range(len(spans) - length + 1):
            last = first + length - 1
            if any(covered[first : last + 1]) or _only_function_words(words[first : last + 1]):
                continue
            span = question[spans[first][0] : spans[last][1]]
            node = next((f for f in _name_forms(span) if store.has_node(f)), None)
            if node is not None:
                covered[first : last + 1] = [True] * length
                found.append((first, node))
    found.sort()  # by position in the question; positions are distinct
    return cap_names((node for _, node in found), MAX_TOPIC_ENTITIES)


def partly_named(question: str, names: Sequence[str]) -> bool:
    """Whether ``question`` reads as one name (no function word, at most
    :data:`MAX_NAME_WORDS` words: a query like ``Cleopatre 1963``) of which ``names``, the node
    names found in it, leave a word out: a misspelt name beside a found one, which is to be
    linked, or refused with the closest names, as a whole rather than answered by the part.

    >>> partly_named("Cleopatre 1963", ["1963"])
    True
    >>> partly_named("Cleopatra 1963", ["Cleopatra", "1963"])
    False
    >>> partly_named("who directed Cleopatre in 1963", ["1963"])
    False
    """
    words = [w.strip(".,;:!?\"'()[]").lower() for w in question.split()]
    words = [w for w in words if w]
    if not words or len(words) > MAX_NAME_WORDS or any(w in FUNCTION_WORDS for w in words):
        return False
    held = {w.lower() for name in names for w in name.split()}
    return any(w not in held for w in words)


def question_as_name(question: str) -> str:
    """A question read as one name for the strict rules of :func:`link_entity_details`:
    stripped of space and quotes (a bare ``Ruggero Raimondy`` from an agent).

    >>> question_as_name(' "Ruggero Raimondi" ')
    'Ruggero Raimondi'
    """
    return question.strip().strip("'\"").strip()


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
