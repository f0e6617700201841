"""What a knowledge-graph tool tells an agent: an answer, an unknown name with the closest
names to retry with, or that the question names no entity.

The LangChain and LlamaIndex tools (``FastToGChain.as_tool``, the retrievers' default
``on_unknown_entity="message"``, ``llamaindex_gretriever.gretriever_tool`` and ``method_tool``)
answer an agent with these texts instead of raising, so that an agent can recover from a typo
or a name written without brackets.

Example
-------
>>> from kgcore.exceptions import EntityNotFoundError
>>> unknown_entity_text(EntityNotFoundError("Cleopatre 1963", ["Cleopatra"]))
"No entity named 'Cleopatre 1963' is in the knowledge graph. Closest names in the graph: \
[Cleopatra]. Ask again with one of them."
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("Carmen", "starred_actors", "Ruggero Raimondi")])
>>> name_as_topic(store, "ruggero raimondi"), name_as_topic(store, "who starred in Carmen")
(['Ruggero Raimondi'], [])
"""

from __future__ import annotations

from kgcore.exceptions import EntityNotFoundError
from kgcore.graph.store import GraphStore
from kgcore.linking import bracketed_entities, link_entity_details
from kgcore.validation import is_unknown_answer

__all__ = ["NO_TOPIC_TEXT", "answer_text", "name_as_topic", "unknown_entity_text"]

#: The reply to a question whose entities could not be found (none written, none extracted).
NO_TOPIC_TEXT = (
    "The question names no entity of the knowledge graph. Write the entity the question is "
    "about in [brackets], e.g. 'who directed [Cleopatra]', or pass it as topic_entities."
)
#: Longest query read as one entity name (:func:`name_as_topic`).
MAX_NAME_CHARS = 200
#: Link rules that make a whole query a name (a fuzzy match of a question is no name).
_NAME_RULES = ("exact", "normalized", "punctuation")


def unknown_entity_text(err: EntityNotFoundError) -> str:
    """The unknown name, the closest names in the graph, and what to do."""
    names = ", ".join(f"[{s}]" for s in err.suggestions)
    hint = f" Closest names in the graph: {names}. Ask again with one of them." if names else ""
    return f"No entity named {err.name!r} is in the knowledge graph.{hint}"


def answer_text(answer: str, fell_back: bool = False, answered: bool | None = None) -> str:
    """A method's answer for an agent; ``Unknown`` says that the graph gave none.

    ``answered`` is the result's (``MethodResult.answered``); without it, the answer is
    unanswered when it is the typed :data:`~kgcore.validation.UNKNOWN`, so a node named
    ``Unknown`` is an answer.

    >>> answer_text("All About Eve")
    'All About Eve'
    >>> answer_text("Paris", fell_back=True)
    "Paris (the model's own answer: the reasoning chains held no answer)"
    >>> from kgcore.validation import UNKNOWN
    >>> answer_text("Unknown", answered=True), answer_text(UNKNOWN)[:30]
    ('Unknown', 'Unknown: the knowledge graph g')
    """
    if answered is False or (answered is None and is_unknown_answer(answer)):
        return "Unknown: the knowledge graph gave no answer to this question."
    if fell_back:
        return f"{answer} (the model's own answer: the reasoning chains held no answer)"
    return answer


def name_as_topic(store: GraphStore, query: str) -> list[str]:
    """``[node]`` when the whole ``query`` is a node's name (as written, or the same name once
    normalised), so an agent that passes a bare name gets that entity; else ``[]``."""
    if bracketed_entities(query):
        return []
    name = query.strip().strip("'\"").strip()
    if not name or len(name) > MAX_NAME_CHARS:
        return []
    try:
        link = link_entity_details(store, name)
    except EntityNotFoundError:
        return []
    return [link.node] if link.method in _NAME_RULES else []
