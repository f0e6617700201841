"""Community-to-text conversion (Triple2Text; Graph2Text plugs into the same protocol)."""

from kgcore.text.registry import resolve_textualizer
from kgcore.text.triple2text import CommunityTextualizer, Triple2Text, relation_phrase

__all__ = ["CommunityTextualizer", "Triple2Text", "relation_phrase", "resolve_textualizer"]
