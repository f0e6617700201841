"""Topic entities of a question written without brackets, found by the graph's own names.

A user's question comes as text alone ("what nationality is rihanna?", "what college did jrr
tolkien go to?"). :func:`question_mentions` reads every run of up to :data:`MAX_SPAN_WORDS`
words that starts and ends with a word that is not a function word (an article may start it:
"The Interpreter"), and asks the store for the nodes it may name (``has_node``, then
``search_nodes``). A node is a candidate when its name is the run's words with case, accents
and punctuation set aside (``antoni gaudi`` is Antoni Gaudí, ``jrr tolkien`` is J. R. R.
Tolkien); nearly so, for a run of more than one word
(rapidfuzz ``ratio`` of at least :data:`FUZZY_THRESHOLD`: ``martin luther king`` is Martin
Luther King, Jr.); or when its name holds every word of the run, for a run of more than one
word or of one word of :data:`MIN_SUBSET_CHARS` letters or more (``romo`` in Sergio Romo,
``syriac`` in Syriac language). One misspelt word is left to strict linking, which names the
closest nodes. A run whose words all name relations of the graph ("currency", "governor") is a
relation asked about, not a topic, when the store can list its relations.

The best mention wins: more words first, then the closer match, then the better-connected
node (a bounded neighbour read); other mentions that do not overlap it join it when they are
as good a match of at least two words (CWQ's "Miley Cyrus ... Tom Vaughan"). No model is
asked: a method asks its model only when this finds nothing.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([
...     ("Antoni Gaudí", "architecture.architect.structures_designed", "Sagrada Família"),
...     ("Peru", "location.country.currency_used", "Peruvian sol"),
...     ("Martin Luther King, Jr.", "people.person.place_of_birth", "Atlanta"),
...     ("Syriac language", "language.human_language.countries_spoken_in", "Iraq")])
>>> [m.node for m in question_mentions(store, "what did antoni gaudi design?")]
['Antoni Gaudí']
>>> [m.node for m in question_mentions(store, "what currency is used in peru?")]
['Peru']
>>> [(m.node, m.rule) for m in question_mentions(store, "where was martin luther king born?")]
[('Martin Luther King, Jr.', 'fuzzy')]
>>> [(m.node, m.rule) for m in question_mentions(store, "where is syriac spoken?")]
[('Syriac language', 'subset')]
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from kgcore.graph.compound import relation_legs
from kgcore.graph.store import GraphStore
from kgcore.linking import FUNCTION_WORDS
from kgcore.text.relations import verbalize_relation
from kgcore.validation import MAX_TOPIC_ENTITIES

__all__ = ["Mention", "fold", "question_mentions", "topic_mentions"]

#: The longest run of words read as one mention.
MAX_SPAN_WORDS = 6
#: Node names asked of the store per run.
CANDIDATES = 8
#: A near match of a run and a node name (rapidfuzz ``ratio`` of the folded forms).
FUZZY_THRESHOLD = 90.0
#: A single word must be this long to be matched as part of a longer name.
MIN_SUBSET_CHARS = 4
#: Neighbours read per candidate node to tell how well connected it is.
DEGREE_READ = 64
#: Function words a name may start with ("The Interpreter").
ARTICLES = frozenset({"the", "a", "an"})
#: How good each kind of match is.
RULE_QUALITY = {"exact": 3, "folded": 3, "fuzzy": 2, "subset": 1}

_NOT_WORD = re.compile(r"[^\w]+")


@dataclass(frozen=True)
class Mention:
    """A run of the question's words (``text``, words ``start`` to ``end``) and the node it
    names, with the kind of match (``exact``, ``folded``, ``fuzzy`` or ``subset``) and the
    node's neighbour count (at most :data:`DEGREE_READ`)."""

    text: str
    start: int
    end: int
    node: str
    rule: str
    degree: int = 0

    @property
    def words(self) -> int:
        return self.end - self.start


def fold(text: str) -> str:
    """A name without case, accents, punctuation and extra space.

    >>> fold("J. R. R. Tolkien"), fold("Antoni Gaudí"), fold("Martin Luther King, Jr.")
    ('j r r tolkien', 'antoni gaudi', 'martin luther king jr')
    """
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return " ".join(_NOT_WORD.sub(" ", plain.casefold().replace("_", " ")).split())


def _squeezed(text: str) -> str:
    """Initials written together: ``j r r tolkien`` as ``jrr tolkien``."""
    return re.sub(r"\b(\w) (?=\w\b)", r"\1", text)


def _match(run: str, node: str) -> str | None:
    """The kind of match of a run of words and a node name, or ``None``."""
    a, b = fold(run), fold(node)
    if not a or not b:
        return None
    if a == b or _squeezed(a) == _squeezed(b):
        return "folded"
    words = a.split()
    if len(words) > 1 and fuzz.ratio(a, b) >= FUZZY_THRESHOLD:
        return "fuzzy"  # one misspelt word is left to strict linking, which names the closest
    if (len(words) > 1 or len(a) >= MIN_SUBSET_CHARS) and set(words) <= set(b.split()):
        return "subset"
    return None


def _relation_words(store: GraphStore) -> frozenset[str]:
    """The words of the store's relation names as a question says them, when the store lists
    its relations (``relation_names()``); empty otherwise."""
    names = getattr(store, "relation_names", None)
    return _words_of_relations(frozenset(names())) if callable(names) else frozenset()


@functools.lru_cache(maxsize=8)
def _words_of_relations(relations: frozenset[str]) -> frozenset[str]:
    """The words of ``relations`` (verbalised leg by leg, singular), read once per graph."""
    words: set[str] = set()
    for relation in relations:
        for leg, _ in relation_legs(str(relation)):
            words.update(_plural_free(w) for w in fold(verbalize_relation(leg)).split())
    return frozenset(words)


def _plural_free(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def question_mentions(store: GraphStore, question: str) -> list[Mention]:
    """Every mention of a node in ``question`` (see the module docstring), best first."""
    words = [w for w in question.split() if fold(w)]
    relation_words = _relation_words(store)
    found: dict[tuple[int, int, str], Mention] = {}
    for size in range(min(MAX_SPAN_WORDS, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            run_words = words[start : start + size]
            first, last = fold(run_words[0]), fold(run_words[-1])
            if (first in FUNCTION_WORDS and (first not in ARTICLES or size == 1)) or (
                last in FUNCTION_WORDS
            ):
                continue
            run = " ".join(run_words).strip("\"'`?!.,;:()[]{}")
            folded = fold(run).split()
            if relation_words and all(_plural_free(w) in relation_words for w in folded):
                continue
            for node, rule in _candidates(store, run):
                if first in ARTICLES and rule not in ("exact", "folded"):
                    continue  # "the un": an article starts a name only when the name has it
                found.setdefault(
                    (start, start + size, node), Mention(run, start, start + size, node, rule)
                )
    longest: dict[str, Mention] = {}  # a node's mention by its longest run only
    for mention in found.values():
        if mention.node not in longest or mention.words > longest[mention.node].words:
            longest[mention.node] = mention
    mentions = list(longest.values())
    degrees = _degrees(store, [m.node for m in mentions])
    mentions = [Mention(m.text, m.start, m.end, m.node, m.rule, degrees[m.node]) for m in mentions]
    return sorted(mentions, key=lambda m: (-m.words, -RULE_QUALITY[m.rule], -m.degree, m.start))


def _candidates(store: GraphStore, run: str) -> list[tuple[str, str]]:
    """The nodes ``run`` may name, with the kind of match."""
    if store.has_node(run):
        return [(run, "exact")]
    found = []
    for node in store.search_nodes(run, limit=CANDIDATES):
        rule = _match(run, node)
        if rule is not None:
            found.append((node, rule))
    return found


def _degrees(store: GraphStore, nodes: Sequence[str]) -> dict[str, int]:
    unique = list(dict.fromkeys(nodes))
    if not unique:
        return {}
    read = store.neighbors_batch(unique, limit=DEGREE_READ)
    return {node: len(read.get(node, ())) for node in unique}


def topic_mentions(store: GraphStore, question: str) -> list[str]:
    """The topic entities of ``question`` found by :func:`question_mentions`: the best
    mention's node, then every mention of at least two words that overlaps none taken and is
    as good a match, at most :data:`~kgcore.validation.MAX_TOPIC_ENTITIES`; ``[]`` when the
    question names no node.

    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([
    ...     ("Miley Cyrus", "film.actor.film", "LOL"),
    ...     ("LOL", "film.film.directed_by", "Lisa Azuelos")])
    >>> topic_mentions(store, "What movie with Miley Cyrus was directed by Lisa Azuelos?")
    ['Miley Cyrus', 'Lisa Azuelos']
    """
    mentions = question_mentions(store, question)
    if not mentions:
        return []
    best = mentions[0]
    taken = [best]
    for mention in mentions[1:]:
        if len(taken) >= MAX_TOPIC_ENTITIES:
            break
        if mention.words < 2 or RULE_QUALITY[mention.rule] < RULE_QUALITY[best.rule]:
            continue
        if any(mention.start < t.end and t.start < mention.end for t in taken):
            continue
        if mention.node not in (t.node for t in taken):
            taken.append(mention)
    return [m.node for m in sorted(taken, key=lambda m: m.start)]
