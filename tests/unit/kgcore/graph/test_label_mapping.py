"""Reading a graph of several labels: the mapping chosen from a schema, the known layouts, the
node keys and literals, and the ``--kg`` options (issue 62). The server side is in
tests/integration/kgcore/graph/test_your_own_graph.py."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.graph.label_mapping import LabelMapping, LabelSpec, mapping_for
from kgcore.graph.label_queries import label_queries
from kgcore.graph.label_store import literal_text, node_key, qualifier_text, split_key
from kgcore.graph.neo4j_queries import DEFAULT_MAPPING, LLAMAINDEX_MAPPING
from kgcore.graph.open import _neo4j_settings
from kgcore.graph.schema import (
    GraphSchema,
    LabelSchema,
    RelationshipSchema,
    _tally,
)


def _label(name: str, count: int, samples: list[dict[str, Any]]) -> LabelSchema:
    schema = LabelSchema(name, count=count, sampled=len(samples))
    _tally(schema.properties, samples)
    return schema


def _movies_schema() -> GraphSchema:
    movies = [
        {"title": f"Film {i}", "released": 1990 + i, "tagline": "short", "imdbId": f"tt{i}",
         "poster": f"https://img/{i}.jpg", "plot": "x" * 400, "embedding": [0.1] * 32}
        for i in range(10)
    ]  # fmt: skip
    people = [{"name": f"Person {i}", "born": 1950 + i} for i in range(20)]
    tags = [{"slug": f"tag-{i}"} for i in range(5)]
    counters = [{"total": i} for i in range(3)]
    acted = RelationshipSchema("ACTED_IN", 30, Counter({("Person", "Movie"): 30}))
    rated = RelationshipSchema("RATED", 3, Counter({("Counter", "Movie"): 3}))
    return GraphSchema(
        {
            "Movie": _label("Movie", 10, movies),
            "Person": _label("Person", 20, people),
            "Tag": _label("Tag", 5, tags),
            "Counter": _label("Counter", 3, counters),
            "Empty": LabelSchema("Empty"),
        },
        {"ACTED_IN": acted, "RATED": rated},
        count_cap=100,
    )


def test_names_facts_and_types_are_chosen_from_the_schema() -> None:
    mapping = LabelMapping.from_schema(_movies_schema())
    assert mapping.labels == (
        LabelSpec("Person", "name", ("born",)),
        LabelSpec("Movie", "title", ("released", "tagline")),  # no id, url, text or vector
        LabelSpec("Tag", "slug"),  # a short, nearly unique string names it
    )
    assert mapping.relationship_types == ("ACTED_IN",)  # RATED leaves the entities
    assert any(s.startswith("Counter: no name-like property") for s in mapping.skipped)
    assert "Empty: no nodes" in mapping.skipped


def test_every_choice_can_be_overridden() -> None:
    mapping = LabelMapping.from_schema(
        _movies_schema(),
        names={"Movie": "tagline"},
        exclude_labels=["Tag"],
        exclude_facts=["Person.born"],
        relationship_types=[],
    )
    assert mapping.labels == (
        LabelSpec("Person", "name"),
        LabelSpec("Movie", "tagline", ("released", "title")),
    )
    assert mapping.label_names == ("Person", "Movie") and mapping.relationship_types == ()
    with pytest.raises(ConfigurationError, match="lacks"):
        LabelMapping.from_schema(_movies_schema(), names={"Film": "title"})
    with pytest.raises(ConfigurationError, match="no entity label"):
        LabelMapping.from_schema(_movies_schema(), labels=["Counter"])


def test_the_known_triple_layouts_keep_their_mapping() -> None:
    entity = _label("Entity", 5, [{"name": "a"}])
    rel = RelationshipSchema("RELATION", 4, Counter({("Entity", "Entity"): 4}))
    assert mapping_for(GraphSchema({"Entity": entity}, {"RELATION": rel}, 100)) is DEFAULT_MAPPING
    node = _label("__Node__", 5, [{"id": "a"}])
    llama = _label("__Entity__", 5, [{"name": "a", "id": "a"}])
    schema = GraphSchema({"__Entity__": llama, "__Node__": node}, {}, 100)
    assert mapping_for(schema) is LLAMAINDEX_MAPPING
    langchain = mapping_for(GraphSchema({"__Entity__": _label("__Entity__", 5, [{"id": "a"}])},
                                        {}, 100))  # fmt: skip
    assert (langchain.node_label, langchain.name_property) == ("__Entity__", "id")
    # A label listed but carried by no node (ArcadeDB keeps empty types) decides nothing.
    assert isinstance(mapping_for(_movies_schema()), LabelMapping)


def test_a_mapping_round_trips_through_plain_data() -> None:
    mapping = LabelMapping.from_schema(_movies_schema())
    again = LabelMapping.from_dict(mapping.as_dict())
    assert again.labels == mapping.labels and again.relationship_types == ("ACTED_IN",)
    with pytest.raises(ConfigurationError, match="names"):
        LabelMapping.from_dict({"facts": {}})
    with pytest.raises(ConfigurationError, match="invalid Cypher"):
        LabelMapping.from_dict({"names": {"Movie": "title` DETACH DELETE n"}})


def test_queries_hold_identifiers_only_from_the_mapping() -> None:
    mapping = LabelMapping((LabelSpec("Person", "name", ("born",)), LabelSpec("Movie", "title")))
    queries = label_queries(mapping)
    assert (
        "$names" in queries["Movie"]["neighbors"] and "n.`born`" in queries["Person"]["neighbors"]
    )
    for by_kind in queries.values():
        for text in by_kind.values():
            assert not any(word in text for word in ("CREATE", "MERGE", "SET ", "DELETE"))


def test_node_keys_and_literals() -> None:
    assert node_key("Mona Lisa", "Painting", True) == "Mona Lisa (Painting)"
    assert split_key("Mona Lisa (Painting)", ["Painting"]) == ("Mona Lisa", "Painting")
    assert split_key("Heat (1995)", ["Painting"]) == ("Heat (1995)", None)
    assert literal_text(3.0) == ["3.0"] and literal_text(-1e308) == ["-1e+308"]
    assert literal_text(float("inf")) == [] and literal_text([[1, 2]]) == []
    assert len(literal_text(list(range(100)))) == 16


def test_kg_options_choose_discovery_or_a_layout() -> None:
    assert _neo4j_settings("bolt://h:7687")["discover"] == {}
    names = _neo4j_settings("bolt://h:7687?names=Person:name,Movie:title")["discover"]
    assert names == {"names": {"Person": "name", "Movie": "title"}, "force_labels": True}
    assert "discover" not in _neo4j_settings("bolt://h:7687?mapping=default")
    assert _neo4j_settings("bolt://h:7687?label=Thing")["mapping"].node_label == "Thing"
    with pytest.raises(ConfigurationError, match="Label:property"):
        _neo4j_settings("bolt://h:7687?names=Person")


def test_relationship_properties_qualify_their_fact_in_the_text() -> None:
    from kgcore.text.triple2text import Triple2Text
    from kgcore.types import Triple, qualified

    note = qualifier_text({"roles": ["Neo"], "id": 7, "embedding": [0.1] * 32})
    assert note == "roles: Neo"
    fact = qualified(Triple("Keanu Reeves", "ACTED_IN", "The Matrix"), note)
    assert fact == Triple("Keanu Reeves", "ACTED_IN", "The Matrix") and {fact} == {tuple(fact)}
    text = Triple2Text()(["Keanu Reeves"], [fact, Triple("The Matrix", "released", "1999")])
    assert text.endswith("Keanu Reeves ACTED IN The Matrix, with roles: Neo.")
    assert qualified(Triple("a", "r", "b"), "") == Triple("a", "r", "b")
