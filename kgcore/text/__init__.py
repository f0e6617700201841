"""Community-to-text conversion (Triple2Text; Graph2Text plugs into the same protocol) and the
relation verbaliser every prompt writes relations with."""

from kgcore.text.registry import resolve_textualizer
from kgcore.text.relations import RelationVerbalizer, distinct_phrases, verbalize_relation
from kgcore.text.triple2text import CommunityTextualizer, Triple2Text, relation_phrase

__all__ = [
    "CommunityTextualizer",
    "RelationVerbalizer",
    "Triple2Text",
    "distinct_phrases",
    "relation_phrase",
    "resolve_textualizer",
    "verbalize_relation",
]
