"""The hallucination guard: generated text must say every fact and invent nothing.

A community's generated text passes when every entity of its triples appears in it
(normalised: case, punctuation and underscores ignored), every capitalised word in it is part
of the community's entities or relations (sentence-opening function words and month names
excepted), and the facts check of :mod:`kgcore.text.graph2text.facts` passes: each triple's
relation is said near its object with the roles the right way round, and no number or
negation is added. Otherwise :class:`GuardedTextualizer` uses Triple2Text for that community
and counts the fallback.

Example
-------
>>> from kgcore.types import Triple
>>> triples = [Triple("Alan_Bean", "occupation", "Test_pilot")]
>>> check_text("Alan Bean was a test pilot.", triples).ok
True
>>> verdict = check_text("Alan Bean was a test pilot for NASA.", triples)
>>> verdict.ok, verdict.foreign
(False, ['NASA'])
>>> check_text("He was a test pilot.", triples).missing
['Alan Bean']
>>> check_text("Alan Bean was a test pilot in 1963.", triples).invented
['1963']
>>> shane = [Triple("Shane", "directed_by", "George Stevens")]
>>> check_text("George Stevens is the author of Shane.", shane).unsupported
['Shane | directed by | George Stevens']
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kgcore.text.graph2text.facts import check_facts
from kgcore.text.graph2text.linearize import plain_triples
from kgcore.text.triple2text import CommunityTextualizer, Triple2Text
from kgcore.types import Triple

#: Fallback texts remembered for :meth:`GuardedTextualizer.fell_back`.
MAX_REMEMBERED = 10_000
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAPITALISED = re.compile(r"\b[A-Z][\w'’.-]*")
_POSSESSIVE = re.compile(r"['’]s$")
#: Capitalised words that are not names: sentence openers and calendar words.
COMMON_CAPITALISED = frozenset(
    """a an the it its he she his her they their this that these those there here in on at of
    for from to by with as and but or both which who whose where when while also its one
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split()
)


def normalise(text: str) -> str:
    """Lower-case words, single spaces: ``"Aarhus, Denmark"`` -> ``"aarhus denmark"``."""
    return " ".join(_WORD.findall(text.replace("_", " ").casefold()))


@dataclass(frozen=True)
class GuardVerdict:
    """Whether a text passed, the entities it missed, the names it made up, the triples it
    does not say (``"s | r | o"``) and the numbers and negations it added."""

    ok: bool
    missing: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    invented: list[str] = field(default_factory=list)


def check_text(text: str, triples: Sequence[Sequence[str]], *, facts: bool = True) -> GuardVerdict:
    """Check a generated text against the community triples it was written from.

    ``facts=False`` checks names only (the guard before the facts check existed).
    """
    plain = plain_triples(triples)
    entities = list(dict.fromkeys(name for h, _, t in plain for name in (h, t)))
    said = f" {normalise(text)} "
    missing = [name for name in entities if normalise(name) and f" {normalise(name)} " not in said]
    known = {word for h, r, t in plain for part in (h, r, t) for word in normalise(part).split()}
    foreign: list[str] = []
    for match in _CAPITALISED.finditer(text):
        name = _POSSESSIVE.sub("", match.group(0).rstrip(".'’-"))
        words = normalise(name).split()
        if any(w not in known and w not in COMMON_CAPITALISED for w in words):
            if name not in foreign:
                foreign.append(name)
    verdict = check_facts(text, triples) if facts else None
    unsupported = verdict.unsupported if verdict else []
    invented = verdict.invented if verdict else []
    ok = not (missing or foreign or unsupported or invented)
    return GuardVerdict(ok, missing, foreign, unsupported, invented)


class GuardedTextualizer:
    """A textualizer whose texts pass the guard, else Triple2Text; counts the fallbacks.

    Parameters
    ----------
    generate : callable
        ``communities -> texts``, batched: :meth:`Graph2Text.generate` or a remote client's.
    fallback : CommunityTextualizer, optional
        Used when a text fails the guard; Triple2Text by default.
    model_name : str, optional
        Which Graph2Text model writes (FastToG records it in its result).

    Examples
    --------
    >>> from kgcore.types import Triple
    >>> g = GuardedTextualizer(lambda cs: ["Alan Bean flew for NASA." for _ in cs])
    >>> g(["Alan Bean"], [Triple("Alan Bean", "occupation", "Test pilot")])
    'Alan Bean occupation Test pilot.'
    >>> g.calls, g.fallbacks, g.fell_back('Alan Bean occupation Test pilot.')
    (1, 1, True)
    """

    def __init__(
        self,
        generate: Callable[[Sequence[Sequence[Sequence[str]]]], list[str]],
        fallback: CommunityTextualizer | None = None,
        *,
        model_name: str | None = None,
    ) -> None:
        self.generate_texts = generate
        self.fallback = fallback or Triple2Text()
        self.model_name = model_name
        self.calls = 0
        self.fallbacks = 0
        self._lock = threading.Lock()
        self._fallback_texts: OrderedDict[str, None] = OrderedDict()  # bounded, newest last

    def generate(
        self, communities: Sequence[tuple[Sequence[str], Sequence[Triple]]]
    ) -> list[tuple[str, bool]]:
        """``(text, fell_back)`` per ``(nodes, triples)`` community, generated in one batch."""
        with_triples = [i for i, (_, triples) in enumerate(communities) if triples]
        generated = self.generate_texts([communities[i][1] for i in with_triples])
        if len(generated) != len(with_triples):  # a remote generator is untrusted
            generated = [*generated, *[""] * len(with_triples)][: len(with_triples)]
        texts = dict(zip(with_triples, generated, strict=True))
        results: list[tuple[str, bool]] = []
        for index, (nodes, triples) in enumerate(communities):
            text = texts.get(index)
            if text is not None and check_text(text, triples).ok:
                results.append((text, False))
            else:
                results.append((self.fallback(nodes, triples), text is not None))
        with self._lock:
            self.calls += len(with_triples)
            self.fallbacks += sum(fell for _, fell in results)
            for text, fell in results:
                if fell:
                    self._fallback_texts[text] = None
                    self._fallback_texts.move_to_end(text)
            while len(self._fallback_texts) > MAX_REMEMBERED:
                self._fallback_texts.popitem(last=False)
        return results

    def fell_back(self, text: str) -> bool:
        """Whether ``text`` is a Triple2Text fallback this textualizer gave (recent ones)."""
        with self._lock:
            return text in self._fallback_texts

    def __call__(self, nodes: Sequence[str], triples: Sequence[Triple]) -> str:
        return self.generate([(nodes, triples)])[0][0]

    def texts(self, communities: Sequence[tuple[Sequence[str], Sequence[Triple]]]) -> list[str]:
        """The text of each ``(nodes, triples)`` community, written in one batch."""
        return [text for text, _ in self.generate(communities)]

    def reset_counts(self) -> None:
        with self._lock:
            self.calls = self.fallbacks = 0
