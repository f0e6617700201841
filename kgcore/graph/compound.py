"""Unnamed compound nodes, and a graph view that steps through them.

Freebase-style graphs join several facts through a node that has no name of its own, only an id
(a compound value type, "CVT": ``m.0w4dx1v``, ``g.1259pqvnv``)::

    James K. Polk --positions_held--> m.04j5sk8 --office_position_or_title--> Governor of Tennessee

Such a node is not a thing a person would name: shown to a model it reads as a name, and a
method may spend a whole depth reaching it or return it as an answer. :class:`CompoundNodeView`
is a :class:`~kgcore.graph.store.GraphStore` over another store in which these nodes are gone:
every two named nodes joined through one of them are joined by one *compound triple* whose
relation holds both legs (:func:`compound_relation`), so one hop of a method crosses the
compound node, and the relation verbaliser writes the fact as one
(:func:`kgcore.text.relations.verbalize_relation`: "government positions held, office position
or title"). Names, neighbours, searches and ``triples_among`` never return an unnamed node.

Each compound triple is oriented so that fewer of its legs are read against their direction
(a leg read backwards is marked with :data:`INVERSE`); a tie keeps the smaller relation, so
both endpoints see the same triple. Only nodes whose name matches :data:`UNNAMED_NODE_PATTERN`
(or the caller's pattern or test) are compound; on a graph without them the view returns what
the store returns.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([
...     ("James K. Polk", "politician.positions_held", "m.04j5sk8"),
...     ("m.04j5sk8", "position_held.office", "Governor of Tennessee")])
>>> view = CompoundNodeView(store)
>>> view.neighbors("James K. Polk")
[Triple(head='James K. Polk', relation='politician.positions_held / position_held.office', \
tail='Governor of Tennessee')]
>>> view.has_node("m.04j5sk8"), "m.04j5sk8" in view.search_nodes("m.04j5sk8")
(False, False)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from kgcore.exceptions import ConfigurationError, InvalidSettingError
from kgcore.graph.store import GraphStore, check_limit
from kgcore.types import Triple, neighbor_sort_key

#: Freebase machine ids (``m.0w4dx1v``) and generated ids (``g.1259pqvnv``): nodes without a
#: name. A named node never looks like this in the graphs this project reads.
UNNAMED_NODE_PATTERN = r"[mg]\.[0-9a-z_]{2,}"
#: Between the legs of a compound relation (relation names hold no spaced slash).
LEG_SEPARATOR = " / "
#: Before a leg that is read against its direction (from its tail to its head).
INVERSE = "^"
#: Neighbours read per compound node at most: a record joins a few facts; an unnamed node with
#: more is a hub (a category, a list), not a record, and is not stepped through.
MAX_COMPOUND_DEGREE = 64

NodeTest = Callable[[str], bool]


def unnamed_node_test(pattern: str | NodeTest | None = UNNAMED_NODE_PATTERN) -> NodeTest:
    """A test ``name -> bool`` for unnamed nodes: a regular expression that matches the whole
    name, a callable, or ``None`` (no node is unnamed).

    >>> test = unnamed_node_test()
    >>> test("m.0w4dx1v"), test("g.1259pqvnv"), test("Barack Obama"), test("m.")
    (True, True, False, False)
    """
    if pattern is None:
        return lambda name: False
    if callable(pattern):
        return pattern
    if not isinstance(pattern, str):
        raise InvalidSettingError(
            "unnamed nodes are given as a pattern, a callable or None, got "
            f"{type(pattern).__name__}"
        )
    if pattern == UNNAMED_NODE_PATTERN:
        return is_unnamed_node
    try:
        compiled = re.compile(pattern)
    except re.error as err:
        raise InvalidSettingError(f"bad unnamed-node pattern {pattern!r}: {err}") from err
    return lambda name: compiled.fullmatch(name) is not None


_FREEBASE_ID = re.compile(UNNAMED_NODE_PATTERN)


def is_unnamed_node(name: str) -> bool:
    """Whether ``name`` is an unnamed node by :data:`UNNAMED_NODE_PATTERN` (a cheap test of
    its first two characters first: it runs for every neighbour read).

    >>> is_unnamed_node("m.0w4dx1v"), is_unnamed_node("Malcolm X")
    (True, False)
    """
    return (
        len(name) > 3
        and name[1] == "."
        and name[0] in "mg"
        and _FREEBASE_ID.fullmatch(name) is not None
    )


def compound_relation(legs: Sequence[tuple[str, bool]]) -> str:
    """The relation of a compound triple from its legs ``(relation, read_inverse)``.

    >>> compound_relation([("film.actor.film", False), ("film.film.starring", True)])
    'film.actor.film / ^film.film.starring'
    """
    return LEG_SEPARATOR.join(f"{INVERSE if inverse else ''}{name}" for name, inverse in legs)


def relation_legs(relation: str) -> list[tuple[str, bool]]:
    """The legs of a relation: ``[(name, read_inverse), ...]``; a plain relation has one.

    >>> relation_legs("film.actor.film / ^film.film.starring")
    [('film.actor.film', False), ('film.film.starring', True)]
    >>> relation_legs("directed_by")
    [('directed_by', False)]
    """
    if LEG_SEPARATOR not in relation:
        return [(relation, False)]
    legs = []
    for part in relation.split(LEG_SEPARATOR):
        inverse = part.startswith(INVERSE)
        legs.append((part[1:] if inverse else part, inverse))
    return legs


def _sort_key(node: str, triple: Triple) -> tuple[str, str, int]:
    return neighbor_sort_key(node, triple)


def _orientation(
    node: str, first: Triple, compound: str, second: Triple, other: str
) -> tuple[int, str, str, str]:
    """``(legs read backwards, relation, head, tail)`` of ``node -first- compound -second-
    other`` read from ``node``."""
    legs = [(first.relation, first.head != node), (second.relation, second.head != compound)]
    return (sum(inverse for _, inverse in legs), compound_relation(legs), node, other)


def _best_triple(
    compound: str, node: str, node_legs: Sequence[Triple], other: str, other_legs: Sequence[Triple]
) -> Triple:
    """The one compound triple that joins ``node`` and ``other`` through ``compound``: of every
    pair of their legs, read either way, the one with the fewest legs read backwards, then the
    smallest relation (so both ends see the same triple; the store often holds a leg both
    ways, ``positions_held`` and ``^office_holder``)."""
    best = min(
        key
        for first in node_legs
        for second in other_legs
        for key in (
            _orientation(node, first, compound, second, other),
            _orientation(other, second, compound, first, node),
        )
    )
    return Triple(best[2], best[1], best[3])


def _pair_triples(compound: str, legs: Sequence[Triple], node: str | None = None) -> list[Triple]:
    """The compound triples through ``compound`` (one per pair of its named neighbours, or per
    pair that holds ``node``), from its ``legs``: its triples to named nodes."""
    by_end: dict[str, list[Triple]] = {}
    for triple in legs:
        by_end.setdefault(triple.other(compound), []).append(triple)
    ends = sorted(by_end)
    pairs = (
        [(node, end) for end in ends if end != node]
        if node is not None
        else [(a, b) for i, a in enumerate(ends) for b in ends[i + 1 :]]
    )
    return [_best_triple(compound, a, by_end[a], b, by_end[b]) for a, b in pairs if a in by_end]


class CompoundNodeView:
    """A :class:`~kgcore.graph.store.GraphStore` over ``store`` without its unnamed nodes.

    Parameters
    ----------
    store : GraphStore
        The graph as stored (any backend: each hop is two ``neighbors_batch`` calls).
    unnamed : str, callable or None
        Which nodes are unnamed compound nodes: a regular expression matched against the whole
        name (:data:`UNNAMED_NODE_PATTERN` by default), a test ``name -> bool``, or ``None``
        for none (the view then returns what ``store`` returns).
    max_compound_degree : int
        Neighbours read per compound node; one with more is skipped (see
        :data:`MAX_COMPOUND_DEGREE`).

    Examples
    --------
    >>> from kgcore.graph import InMemoryGraphStore
    >>> store = InMemoryGraphStore.from_triples([
    ...     ("Daniel Craig", "actor.film", "m.0ncxk4s"),
    ...     ("Tintin", "film.starring", "m.0ncxk4s"),
    ...     ("m.0ncxk4s", "performance.character", "Ivan Ivanovitch Sakharine")])
    >>> view = CompoundNodeView(store)
    >>> for triple in view.triples_among(["Daniel Craig", "Tintin", "Ivan Ivanovitch Sakharine"]):
    ...     print(tuple(triple))
    ('Daniel Craig', 'actor.film / ^film.starring', 'Tintin')
    ('Daniel Craig', 'actor.film / performance.character', 'Ivan Ivanovitch Sakharine')
    ('Tintin', 'film.starring / performance.character', 'Ivan Ivanovitch Sakharine')
    """

    def __init__(
        self,
        store: GraphStore,
        unnamed: str | NodeTest | None = UNNAMED_NODE_PATTERN,
        max_compound_degree: int = MAX_COMPOUND_DEGREE,
    ) -> None:
        if isinstance(store, CompoundNodeView):
            raise ConfigurationError("the store is a CompoundNodeView already: wrap it once")
        if isinstance(max_compound_degree, bool) or not isinstance(max_compound_degree, int):
            raise InvalidSettingError("max_compound_degree must be an integer")
        if max_compound_degree < 2:
            raise InvalidSettingError(
                f"max_compound_degree must be at least 2, got {max_compound_degree}"
            )
        self.inner = store
        self.is_unnamed = unnamed_node_test(unnamed)
        self.max_compound_degree = max_compound_degree
        self._pattern = unnamed if isinstance(unnamed, str) else None
        self._no_unnamed = unnamed is None

    def may_hold_unnamed(self) -> bool:
        """Whether the store may hold an unnamed node: ``False`` only when the view has no
        pattern, or the store says no node name matches it (``holds_names_matching``, asked
        once by the stores that have it: the in-memory and Bolt stores); then
        :meth:`triples_among` reads no neighbour lists to look for compound nodes."""
        if self._no_unnamed:
            return False
        ask = getattr(self.inner, "holds_names_matching", None)
        if self._pattern is None or not callable(ask):
            return True
        return bool(ask(self._pattern))

    def __repr__(self) -> str:
        return f"CompoundNodeView({self.inner!r})"

    # -- names --------------------------------------------------------------------------
    def has_node(self, name: str) -> bool:
        return not self.is_unnamed(name) and self.inner.has_node(name)

    def search_nodes(self, text: str, limit: int = 5) -> list[str]:
        found = self.inner.search_nodes(text, limit=limit + 8)
        return [name for name in found if not self.is_unnamed(name)][:limit]

    def relation_names(self) -> frozenset[str]:
        """The store's relation names (legs, as stored) where it lists them, else none."""
        names = getattr(self.inner, "relation_names", None)
        if not callable(names):
            return frozenset()
        found = names()
        return found if isinstance(found, frozenset) else frozenset(found)

    def num_nodes(self) -> int:
        """The store's node count (unnamed nodes included: counting them costs a scan)."""
        return self.inner.num_nodes()

    def num_triples(self) -> int:
        """The store's triple count (as stored)."""
        return self.inner.num_triples()

    def node_type(self, name: str) -> str | None:
        """The store's type of ``name`` where it has types (``node_type`` or a ``type``
        attribute on an in-memory graph's nodes), else ``None``."""
        method = getattr(self.inner, "node_type", None)
        if callable(method):
            value = method(name)
            return str(value) if value else None
        nodes = getattr(getattr(self.inner, "graph", None), "nodes", None)
        if nodes is None or name not in nodes:
            return None
        value = nodes[name].get("type")
        return str(value) if value else None

    # -- neighbours ---------------------------------------------------------------------
    def neighbors(self, node: str, limit: int | None = None) -> list[Triple]:
        return list(self.neighbors_batch([node], limit=limit).get(node, ()))

    def neighbors_batch(
        self, nodes: Iterable[str], limit: int | None = None
    ) -> Mapping[str, Sequence[Triple]]:
        """Each named node's triples, compound triples included, in canonical order.

        ``limit`` caps the triples read from the store per node (as for any store) and the
        triples returned.
        """
        limit = check_limit(limit)
        named = [n for n in dict.fromkeys(nodes) if not self.is_unnamed(n)]
        raw = self.inner.neighbors_batch(named, limit=limit)
        if not self.may_hold_unnamed():
            return {node: list(raw.get(node, ())) for node in named}
        compounds = sorted(
            {
                t.other(node)
                for node in named
                for t in raw.get(node, ())
                if self.is_unnamed(t.other(node))
            }
        )
        legs = self._compound_legs(compounds)
        out: dict[str, list[Triple]] = {}
        for node in named:
            triples = raw.get(node, ())
            if not any(self.is_unnamed(t.other(node)) for t in triples):
                out[node] = list(triples)  # in canonical order and within the limit already
                continue
            found: dict[Triple, None] = {}
            for triple in triples:
                other = triple.other(node)
                if not self.is_unnamed(other):
                    found[triple] = None
                    continue
                for joined in _pair_triples(other, legs.get(other, ()), node):
                    found[joined] = None
            ordered = sorted(found, key=partial(_sort_key, node))
            out[node] = ordered if limit is None else ordered[:limit]
        return out

    def _compound_legs(self, compounds: Sequence[str]) -> dict[str, list[Triple]]:
        """Each compound node's triples to named nodes; a compound node with more than
        ``max_compound_degree`` neighbours is left out (it is no record)."""
        if not compounds:
            return {}
        cap = self.max_compound_degree
        batch = self.inner.neighbors_batch(compounds, limit=cap + 1)
        legs: dict[str, list[Triple]] = {}
        for compound in compounds:
            triples = list(batch.get(compound, ()))
            if len(triples) > cap:
                continue
            legs[compound] = [t for t in triples if not self.is_unnamed(t.other(compound))]
        return legs

    def triples_among(self, nodes: Iterable[str]) -> list[Triple]:
        """Every triple (compound ones included) whose ends are both among the named
        ``nodes``, sorted."""
        members = {n for n in nodes if not self.is_unnamed(n)}
        if not self.may_hold_unnamed():
            return self.inner.triples_among(members)
        found = set(self.inner.triples_among(members))
        compounds: dict[str, list[Triple]] = {}
        # The compound nodes next to two members, read from the store in one call.
        raw = self.inner.neighbors_batch(sorted(members))
        for node in sorted(members):
            for triple in raw.get(node, ()):
                other = triple.other(node)
                if self.is_unnamed(other):
                    compounds.setdefault(other, []).append(triple)
        shared = sorted(c for c, ts in compounds.items() if len({t.other(c) for t in ts}) > 1)
        legs = self._compound_legs(shared)
        for compound in shared:
            touching = [t for t in legs.get(compound, ()) if t.other(compound) in members]
            found.update(_pair_triples(compound, touching))
        return sorted(found)

    def all_triples(self) -> list[Triple]:
        """Every triple of the view, sorted (the store must list its triples: an in-memory
        store does)."""
        graph = getattr(self.inner, "graph", None)
        edges = getattr(graph, "edges", None)
        if edges is None:
            raise ConfigurationError(
                f"a {type(self.inner).__name__} does not list its triples: give questions topic "
                "entities instead"
            )
        names = [n for n in graph.nodes if not self.is_unnamed(n)]  # type: ignore[union-attr]
        return self.triples_among(names)


def compound_view(store: GraphStore, unnamed: str | NodeTest | None = UNNAMED_NODE_PATTERN) -> Any:
    """``store`` seen through a :class:`CompoundNodeView` (a view is returned as it is).

    >>> from kgcore.graph import InMemoryGraphStore
    >>> view = compound_view(InMemoryGraphStore())
    >>> compound_view(view) is view
    True
    """
    if isinstance(store, CompoundNodeView):
        return store
    return CompoundNodeView(store, unnamed)
