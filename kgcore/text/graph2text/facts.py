"""Fact checks for generated text: each triple said, with its relation and its roles.

The name guard (:func:`kgcore.text.graph2text.guard.check_text`) asks that every entity is
named and no other name is made up; this module asks that the *facts* are said. It is a rule
round trip, with no model:

* **relation**: for each triple ``(s, r, o)``, a word that carries the relation's meaning (the
  relation's own words, reduced to a stem, or a synonym of the small table
  :data:`RELATION_SYNONYMS`: ``directed_by`` ~ directed, director, helmed) stands within
  :data:`WINDOW` words of a mention of ``o`` (names of the community's other entities and list
  words such as "and" are not counted), in a sentence that names ``s`` or refers to it (it, the
  film, which, ...). Place-like relations (``country``, ``location``, ``in_language``, ...) may
  also be said by a preposition or a comma before ``o`` ("Aarhus, Denmark", "in English"), a
  year by "in 1953" or "a 1953 film", a genre or tag by "a western", "a western film".
* **roles**: a relation read with "by" (``directed_by``, ``written_by``) needs the passive or
  an agent noun when ``s`` comes first ("Shane was directed by George Stevens", "Shane's
  director George Stevens"), the active verb when ``o`` comes first ("George Stevens directed
  Shane"); "s is the r of o" and "o's r is s" say the triple backwards (except for relations
  that read that way, ``isPartOf``, and symmetric ones, ``spouse``).
* **numbers and negations**: a number (a year, a count) in the text must occur in the input; a
  negation ("not", "never", "n't", "without") must occur in the input too.

Examples
--------
>>> from kgcore.types import Triple
>>> shane = [Triple("Shane", "directed_by", "George Stevens")]
>>> check_facts("Shane was directed by George Stevens.", shane).ok
True
>>> check_facts("George Stevens directed Shane.", shane).ok
True
>>> check_facts("George Stevens is the author of Shane.", shane).unsupported
['Shane | directed by | George Stevens']
>>> check_facts("Shane directed George Stevens.", shane).ok
False
>>> check_facts("Shane was directed by George Stevens in 1953.", shane).invented
['1953']
>>> check_facts("Shane was not directed by George Stevens.", shane).invented
['not']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from kgcore.text.graph2text.linearize import plain_triples

#: Non-entity words allowed between a relation word and the object it governs.
WINDOW = 5
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
#: A sentence end: not the dot of an initial ("David R. Ellis") or of a title ("Dr.", "Jr.").
_SENTENCE_END = re.compile(
    r"(?<!\b[A-Z])(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bDr)(?<!\bSt)(?<!\bJr)(?<!\bSr)"
    r"[.!?]+(?:\s+|$)"
)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_NT = re.compile(r"\b\w+n[’']t\b", re.IGNORECASE)

#: Words of a relation name that carry no meaning of their own.
RELATION_STOPWORDS = frozenset(
    "has have had is was are were be been the a an of by in on at to for from name names "
    "and with its it number value".split()
)
#: Extra words per relation word; keys and words are compared as :func:`stem` makes them.
RELATION_SYNONYMS: dict[str, tuple[str, ...]] = {
    "directed": ("director", "helmed"),
    "written": ("wrote", "written", "writer", "author", "screenplay", "script", "penned", "novel"),
    "author": ("wrote", "written", "writer", "penned"),
    "starred": ("actor", "actress", "cast", "feature", "featuring", "appear", "play", "role"),
    "actor": ("star", "starring", "cast", "feature", "featuring", "appear", "play", "role"),
    "release": ("premiered", "debuted", "year"),
    "year": ("released", "premiered"),
    "language": ("english", "spoken", "speak"),
    "genre": ("type", "kind", "category", "classified"),
    "tag": ("tagged", "about", "known", "described", "associated", "theme"),
    "votes": ("imdb",),
    "rating": ("imdb", "rated", "score"),
    "imdb": ("rating", "rated", "votes", "score"),
    "birth": ("born",),
    "born": ("birth",),
    "death": ("died", "dead", "death"),
    "leader": ("led", "leader", "head", "headed", "governed", "president", "ruled"),
    "served": ("serves", "served", "serving"),
    "capital": ("capital",),
    "location": ("located", "in", "situated", "based", "lies"),
    "country": ("in", "located", "national", "nation"),
    "nationality": ("national", "citizen"),
    "almamater": ("graduated", "studied", "educated", "alma", "mater", "attended"),
    "occupation": ("worked", "work", "job", "profession", "career"),
    "spouse": ("married", "wife", "husband", "spouse"),
    "child": ("son", "daughter", "children", "father", "mother", "parent"),
    "parent": ("son", "daughter", "father", "mother", "child"),
    "club": ("plays", "played", "team", "member"),
    "manager": ("managed", "manager", "coach", "coached"),
    "owner": ("owned", "owner", "belongs"),
    "operator": ("operated", "operator", "run", "runs"),
    "founder": ("founded", "founder", "established", "formed", "created"),
    "creator": ("created", "creator", "made", "designed", "invented"),
    "producer": ("produced", "producer", "made", "manufactured", "manufacturer", "built"),
    "ingredient": ("contains", "made", "include", "includes", "ingredient", "with"),
}
#: Relations said by a preposition or comma before the object ("in Denmark", "Aarhus, Denmark").
PLACE_RELATION_WORDS = "country location city state region part ground headquarters language"
#: Relations whose object is read as a kind: "a western", "a western film", "was a test pilot".
KIND_RELATION_WORDS = "genre tags type class category occupation profession"
PLACE_WORDS = frozenset("in of at from near on".split())
KIND_FOLLOWERS = frozenset("film films movie movies drama dramas comedy story picture".split())
#: Words that stand for the subject in a later sentence.
REFERRING = frozenset(
    "it its he his him she her they their them this that which who whose whom the".split()
)
#: Relations that read the same both ways.
SYMMETRIC_RELATION_WORDS = "spouse partner sibling neighbor neighbour related borders"
NEGATIONS = frozenset("not no never neither nor none nobody nothing nowhere without cannot".split())
AGENT_SUFFIXES = ("or", "er", "ist")
BE_WORDS = frozenset("is was are were".split())
ARTICLES = frozenset("the a an one".split())
_SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ers", "ors", "er", "or", "ed", "es")


def stem(word: str) -> str:
    """A crude stem: lower case, a common suffix and a final ``s``/``y``/``e`` and a doubled
    last consonant dropped (``"directed"``, ``"director"`` -> ``"direct"``).

    >>> stem("starring"), stem("stars"), stem("starred"), stem("director")
    ('star', 'star', 'star', 'direct')
    """
    w = word.casefold()
    for suffix in _SUFFIXES:
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    if len(w) > 3 and w[-1] in "sye":
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiou":
        w = w[:-1]
    return w


_SYNONYM_STEMS = {
    stem(key): frozenset(stem(w) for w in words) for key, words in RELATION_SYNONYMS.items()
}
PLACE_STEMS = frozenset(stem(w) for w in PLACE_RELATION_WORDS.split())
KIND_STEMS = frozenset(stem(w) for w in KIND_RELATION_WORDS.split())
SYMMETRIC_STEMS = frozenset(stem(w) for w in SYMMETRIC_RELATION_WORDS.split())


def _related(a: str, b: str) -> bool:
    """Two stems of one word family: equal, or one starts the other (four letters at least)."""
    return a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))


def tokens(text: str) -> list[str]:
    """Lower-cased words of ``text`` (``"Shane's"`` -> ``["shane", "s"]``)."""
    return _TOKEN.findall(text.replace("_", " ").casefold())


@dataclass(frozen=True)
class FactVerdict:
    """Which triples the text does not say (or says backwards) and what it invents."""

    ok: bool
    unsupported: list[str] = field(default_factory=list)
    invented: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Relation:
    cues: frozenset[str]
    passive: bool
    reads_of: bool
    symmetric: bool
    place: bool
    kind: bool


def _relation(relation: str) -> _Relation:
    words = tokens(relation)
    content = [w for w in words if w not in RELATION_STOPWORDS] or words
    stems = {stem(w) for w in content}
    stems.add(stem("".join(content)))
    cues = set(stems)
    for key, synonyms in _SYNONYM_STEMS.items():
        if any(_related(s, key) for s in stems):
            cues.update(synonyms)

    def any_of(group: frozenset[str]) -> bool:
        return any(_related(s, g) for s in stems for g in group)

    return _Relation(
        cues=frozenset(cues - {""}),
        passive=bool(words) and words[-1] == "by",
        reads_of=bool(words) and (words[-1] == "of" or words[0] in BE_WORDS),
        symmetric=any_of(SYMMETRIC_STEMS),
        place=any_of(PLACE_STEMS),
        kind=any_of(KIND_STEMS),
    )


def _spans(words: Sequence[str], name: Sequence[str]) -> list[tuple[int, int]]:
    n = len(name)
    if not n:
        return []
    return [(i, i + n) for i in range(len(words) - n + 1) if list(words[i : i + n]) == list(name)]


def _sentence_ids(text: str, count: int) -> list[int]:
    """The sentence number of each token of ``text`` (``count`` tokens)."""
    ids: list[int] = []
    sentence = 0
    for part in _SENTENCE_END.split(text):
        ids.extend([sentence] * len(tokens(part)))
        sentence += 1
    return (ids + [sentence] * count)[:count]


def _numbers(text: str) -> list[str]:
    return [m.group(0).replace(",", "").rstrip(".") for m in _NUMBER.finditer(text)]


def _allowed_numbers(parts: Sequence[str]) -> set[str]:
    allowed: set[str] = set()
    for part in parts:
        for number in _numbers(part):
            allowed.add(number)
            whole, _, fraction = number.partition(".")
            allowed.add(whole)
            if fraction.strip("0") == "":
                allowed.add(whole)
            allowed.add(whole.lstrip("0") or "0")
        for run in re.findall(r"\d+", part):
            allowed.update({run, run.lstrip("0") or "0"})
    return allowed


class _Reading:
    """One text read once: its words, sentences and entity mentions."""

    def __init__(self, text: str, entities: Sequence[str]) -> None:
        self.words = tokens(text)
        self.sentence = _sentence_ids(text, len(self.words))
        self.mentions = {e: _spans(self.words, tokens(e)) for e in entities}
        self.entity_token = [False] * len(self.words)
        for spans in self.mentions.values():
            for start, end in spans:
                for i in range(start, end):
                    self.entity_token[i] = True
        self.stems = [stem(w) for w in self.words]

    def gap(self, a: int, b: int) -> int:
        """Non-entity words strictly between positions ``a < b`` (list words not counted)."""
        return sum(
            1
            for i in range(a + 1, b)
            if not self.entity_token[i] and self.words[i] not in ("and", "or", "as", "well")
        )

    def cue_positions(self, relation: _Relation) -> list[int]:
        return [
            i
            for i, s in enumerate(self.stems)
            if not self.entity_token[i] and any(_related(s, c) for c in relation.cues)
        ]


def _refers(reading: _Reading, subject: str, sentence: int) -> bool:
    spans = reading.mentions.get(subject, [])
    if any(reading.sentence[start] == sentence for start, _ in spans):
        return True
    first = min((start for start, _ in spans), default=len(reading.words))
    return any(
        reading.sentence[i] == sentence and reading.words[i] in REFERRING and i > first
        for i in range(len(reading.words))
    )


def _says(reading: _Reading, s: str, relation: _Relation, o: str) -> bool:
    """Whether the text says ``(s, relation, o)`` with the roles right."""
    cues = reading.cue_positions(relation)
    for o_start, o_end in reading.mentions.get(o, []):
        sentence = reading.sentence[o_start]
        if not _refers(reading, s, sentence):
            continue
        for c in cues:
            if reading.sentence[c] != sentence:
                continue
            before = c < o_start
            if before and reading.gap(c, o_start) > WINDOW:
                continue
            if not before and (c < o_end or reading.gap(o_end - 1, c) > WINDOW):
                continue
            if relation.passive and not _passive_ok(reading, c, o_start, o_end, before):
                continue
            return True
        if _implicit(reading, relation, o_start, o_end):
            return True
    return False


def _passive_ok(reading: _Reading, cue: int, o_start: int, o_end: int, before: bool) -> bool:
    """A ``*_by`` relation: "directed by O" / "director O" / "O directed"; not "directed O"."""
    word = reading.words[cue]
    agent = word.endswith(AGENT_SUFFIXES) and not word.endswith("ed")
    followed_by_by = cue + 1 < len(reading.words) and reading.words[cue + 1] == "by"
    if before:
        return followed_by_by or agent or "by" in reading.words[cue + 1 : o_start]
    return not followed_by_by


def _implicit(reading: _Reading, relation: _Relation, o_start: int, o_end: int) -> bool:
    prev = reading.words[o_start - 1] if o_start else ""
    following = [
        reading.words[i]
        for i in range(o_end, min(o_end + 3, len(reading.words)))
        if not reading.entity_token[i]
    ]
    after = following[0] if following else ""
    if relation.place and (
        prev in PLACE_WORDS or reading.entity_token[o_start - 1 : o_start] == [True]
    ):
        return True
    if relation.kind and (prev in ("a", "an", "as") or after in KIND_FOLLOWERS):
        return True
    year = reading.words[o_start].isdigit() and o_end - o_start == 1
    return (
        year
        and "year" in "".join(relation.cues)
        and (prev in ("in", "of", "from") or after in KIND_FOLLOWERS)
    )


def _backwards(reading: _Reading, s: str, relation: _Relation, o: str) -> bool:
    """ "s is the r of o" or "o's r is s": the triple said the other way round."""
    if relation.reads_of or relation.symmetric:
        return False
    cues = set(reading.cue_positions(relation))
    for first, second in ((s, o), (o, s)):
        for _, a_end in reading.mentions.get(first, []):
            for b_start, _ in reading.mentions.get(second, []):
                middle = reading.words[a_end:b_start]
                if not 2 <= len(middle) <= 6 or not cues & set(range(a_end, b_start)):
                    continue
                copula = middle[0] in BE_WORDS and middle[-1] == "of"
                possessive = first == o and middle[0] == "s" and middle[-1] in BE_WORDS
                if (copula and first == s) or possessive:
                    return True
    return False


def check_facts(text: str, triples: Sequence[Sequence[str]]) -> FactVerdict:
    """Check that ``text`` says every triple (relation and roles) and invents no number or
    negation; entities missing from the text are the name guard's concern and not listed."""
    plain = plain_triples(triples)
    entities = list(dict.fromkeys(name for h, _, t in plain for name in (h, t)))
    reading = _Reading(text, entities)
    unsupported: list[str] = []
    for h, r, t in plain:
        if not reading.mentions.get(h) or not reading.mentions.get(t):
            continue
        relation = _relation(r)
        if not _says(reading, h, relation, t) or _backwards(reading, h, relation, t):
            unsupported.append(f"{h} | {r} | {t}")
    parts = [part for triple in plain for part in triple]
    allowed = _allowed_numbers(parts)
    invented = [n for n in dict.fromkeys(_numbers(text)) if n not in allowed]
    given = {w for part in parts for w in tokens(part)}
    negations = [w for w in dict.fromkeys(reading.words) if w in NEGATIONS and w not in given]
    negations += [m.group(0) for m in _NT.finditer(text)]
    invented += list(dict.fromkeys(negations))
    return FactVerdict(not unsupported and not invented, unsupported, invented)
