"""Fuzzy linking on the Bolt store with the full-text index, without a server: a fake session
answers the store's queries over a list of names as a full-text index of exact terms does, so
the candidates the store asks for, and the links they give, can be compared with memory's."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from kgcore.exceptions import EntityNotFoundError
from kgcore.graph.memory import InMemoryGraphStore
from kgcore.graph.neo4j_store import (
    FULLTEXT_VARIANT_TERMS,
    Neo4jGraphStore,
    fulltext_words,
    spelling_variants,
    variants_query,
)
from kgcore.linking import link_entity_details

pytest.importorskip("neo4j", reason="the neo4j driver is in the neo4j extra")

NAMES = [
    "James Bond",
    "James Bobin",
    "James Earl Jones",
    "Elizabeth Rice",
    "Elizabeth Acker",
    "Elizabeth",
    "Trick",
    "Tricks of Love",
    "The Fallen",
    "Allen Ginsberg",
    "Schwarzenegger",
    "The Matrix",
    "Heat",
]


class FakeRecord:
    def __init__(self, values: list[Any]) -> None:
        self._values = values

    def values(self) -> list[Any]:
        return self._values


class FakeTransaction:
    def __init__(self, driver: FakeIndexDriver) -> None:
        self.driver = driver

    def run(self, query: str, parameters: dict[str, Any] | None = None, **kw: Any) -> Any:
        params = dict(parameters or {})
        self.driver.sent.append((query, params))
        return [FakeRecord(row) for row in self.driver.answer(query, params)]


class FakeSession:
    def __init__(self, driver: FakeIndexDriver) -> None:
        self.driver = driver

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def execute_read(self, work: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        return work(FakeTransaction(self.driver), *args, **kw)


class FakeIndexDriver:
    """A name index and a full-text index of exact terms (no fuzzy operator) over ``names``."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def session(self, **config: Any) -> FakeSession:
        return FakeSession(self)

    def answer(self, query: str, params: dict[str, Any]) -> list[list[Any]]:
        if "fulltext.queryNodes" in query:
            assert "~" not in params["query"] and "*" not in params["query"]
            # The server itself keeps only the best ``cap`` matches (the procedure's option).
            assert "{limit: $cap}" in query
            terms = set(params["query"].split())
            words = {name: set(fulltext_words(name)) for name in self.names}
            # Like BM25: rare terms weigh more, names of fewer words score higher.
            weight = {
                t: math.log(1 + len(self.names) / sum(t in w for w in words.values()))
                for t in terms
                if any(t in w for w in words.values())
            }
            scored = [
                (name, sum(weight[t] for t in terms & words[name]) / (1 + 0.1 * len(words[name])))
                for name in self.names
                if terms & words[name]
            ]
            scored.sort(key=lambda row: (-row[1], row[0]))
            # One record: the list of [name, score] pairs (collect([name, score])).
            return [[[[name, score] for name, score in scored[: params["cap"]]]]]
        if "count(n) > 0" in query:
            return [[params["name"] in self.names]]
        if "UNWIND $names AS wanted" in query:
            return [[n] for n in self.names if n in params["names"]]
        if "count(n)" in query:
            return [[len(self.names)]]
        raise AssertionError(f"unexpected query: {query}")

    def close(self) -> None:
        return None


def fake_store(names: list[str] = NAMES) -> tuple[Neo4jGraphStore, FakeIndexDriver]:
    store = Neo4jGraphStore("bolt://fake:7687", "neo4j", "pw", verify=False, name_search="fulltext")
    store._driver.close()
    driver = FakeIndexDriver(names)
    store._driver = driver
    return store, driver


def outcome(store: Any, name: str) -> str:
    try:
        return link_entity_details(store, name).node
    except EntityNotFoundError:
        return "(refused)"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("James Bond", "James Bond"),  # exact
        ("the matrix", "The Matrix"),  # case only
        ("The Matrix!", "The Matrix"),  # punctuation only
        ("Schwarzeneggre", "Schwarzenegger"),  # one word, two letters swapped
        ("Elizabeth Rcie", "Elizabeth Rice"),  # one of two words misspelt
        ("james obnd", "(refused)"),  # the runner-up James Bobin is too close
        ("Elizabeth Race", "(refused)"),  # the runner-up Elizabeth Acker is too close
        ("Tricks", "Trick"),  # a real word one edit from the node
        ("The Allen", "The Fallen"),  # a letter added
        ("Zyxwv Qqq", "(refused)"),  # made up
    ],
)
def test_fulltext_linking_gives_the_in_memory_outcome(name: str, expected: str) -> None:
    memory = InMemoryGraphStore.from_triples([(n, "is", "Heat") for n in NAMES])
    store, _ = fake_store()
    try:
        assert outcome(memory, name) == expected
        assert outcome(store, name) == expected
    finally:
        store.close()


@pytest.mark.parametrize(
    ("name", "variant_queries"),
    [("the matrix", 0), ("Elizabeth Rcie", 1), ("Schwarzeneggre", 1)],
)
def test_the_variants_query_is_sent_only_when_no_name_has_the_words(
    name: str, variant_queries: int
) -> None:
    store, driver = fake_store()
    try:
        store.search_nodes(name, limit=10)
        assert store.queries["fulltext"] == 1
        assert store.queries["fulltext_variants"] == variant_queries
        assert all(
            len(params["query"].split()) <= FULLTEXT_VARIANT_TERMS
            for _, params in driver.sent
            if "query" in params
        )
    finally:
        store.close()


@pytest.mark.parametrize(
    ("name", "varied", "not_varied"),
    [
        # "rcie" is held by no name: only it and its spellings are asked for, not "elizabeth"
        # nor its spellings (a common word's entries grow with the graph; the names holding
        # it came with the first query).
        ("Elizabeth Rcie", "rice", "elizabet"),
        ("Elizabeth Rcie", "rcie", "elizabeth"),
        # Every word is held ("tricks" by "Tricks of Love"): the held words' spellings are.
        ("Tricks", "trick", None),
    ],
)
def test_the_variants_query_spells_the_misspelt_words_only(
    name: str, varied: str, not_varied: str | None
) -> None:
    store, driver = fake_store()
    try:
        store.search_nodes(name, limit=10)
        variants = [p["query"].split() for q, p in driver.sent if "queryNodes" in q][1]
        assert varied in variants
        if not_varied is not None:
            assert not_varied not in variants
    finally:
        store.close()


def test_each_fulltext_query_keeps_the_index_best_cap_then_closest_in_length_first() -> None:
    # "Heat xxxx" holds both words; the others tie on "heat" and the index breaks ties by name,
    # so its best five are "Heat xxxx" and the four names first in order, not the closest in
    # length ("Heat xxxxxx" is as close as "Heat xx" but not among them).
    names = [f"Heat {'x' * k}" for k in range(1, 40)]
    store, driver = fake_store(names)
    try:
        found = store.fulltext_names("Heat xxxx", cap=5)
        assert found == ["Heat xxxx", "Heat xxx", "Heat xxxxx", "Heat xx", "Heat x"]
        # The same words found: no second query; the cap went to the server.
        assert [p["cap"] for q, p in driver.sent if "queryNodes" in q] == [5]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("word", "variant"),
    [
        ("obnd", "bond"),
        ("tricks", "trick"),
        ("allen", "fallen"),
        ("rcie", "rice"),
        ("rase", "race"),
    ],
)
def test_spelling_variants_hold_each_one_edit_spelling(word: str, variant: str) -> None:
    variants = spelling_variants(word)
    assert variant in variants
    assert word not in variants
    assert len(variants) == len(set(variants))


@pytest.mark.parametrize("words", [["a" * 30], ["schwarzenegger", "arnold", "terminator"]])
def test_a_variants_query_never_exceeds_the_clause_limit(words: list[str]) -> None:
    terms = variants_query(words, words).split()
    assert len(terms) == FULLTEXT_VARIANT_TERMS
    assert terms[: len(words)] == words
    # Every word gets its first variants (the swaps) before any word gets its last ones.
    assert all(spelling_variants(word)[0] in terms for word in words if len(set(word)) > 1)


@pytest.mark.parametrize(
    "reply",
    [
        [],  # no record
        [[None]],  # no list
        [["Heat"]],  # a name where the list should be
        [[[["Heat"], [1, 2], ["Heat", "high"], "Heat", [None, 1.0]]]],  # malformed pairs
    ],
)
def test_a_malformed_fulltext_reply_gives_no_candidates_and_no_error(reply: list[Any]) -> None:
    store, driver = fake_store()
    try:
        driver.answer = lambda query, params: reply  # type: ignore[method-assign]
        assert store.fulltext_names("Heat") == []
    finally:
        store.close()


def test_the_fulltext_pairs_are_read_closest_in_length_first() -> None:
    store, driver = fake_store()
    try:
        pairs = [["Heat Wave", 2.0], ["Heat", 1.0], ["Heath", 3]]
        driver.answer = lambda query, params: [[pairs]]  # type: ignore[method-assign]
        assert store.fulltext_names("Heat") == ["Heat", "Heath", "Heat Wave"]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("David O'Malley", ["david", "o'malley"]),
        ("Schindler's List", ["schindler's", "list"]),
        ("H.G. Wells", ["h.g", "wells"]),
        ("X-Men 2.5", ["x", "men", "2.5"]),
        ("'Quoted' name.", ["quoted", "name"]),
    ],
)
def test_fulltext_words_are_the_terms_the_standard_tokenizer_cuts(
    name: str, words: list[str]
) -> None:
    assert fulltext_words(name) == words


def test_each_spelling_asked_for_is_one_term_of_the_index() -> None:
    # "o'd9ay" would be two terms, so two clauses: a query of 1,000 could pass Lucene's 1,024.
    terms = variants_query(["o'day", "kitty"], ["o'day", "kitty"]).split()
    assert "o'dya" in terms and "oday" in terms
    assert all(fulltext_words(term) == [term] for term in terms)
