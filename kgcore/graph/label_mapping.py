"""How a graph of several labels is read as facts: which labels are entities, which property
names a node of each, which relationship types are followed, which properties are facts.

:meth:`LabelMapping.from_schema` chooses all of it from a :class:`~kgcore.graph.schema.GraphSchema`
(every choice overridable); :func:`mapping_for` also recognises the triple layouts this package,
LangChain and LlamaIndex write and gives their :class:`~kgcore.graph.neo4j_queries.GraphMapping`,
so such graphs read exactly as before.

A node's name property is, per label, the first of :data:`NAME_KEYS` it holds as a string, else
the shortest nearly unique short string property; a label with none is not an entity (and
:meth:`LabelMapping.describe` says so). Fact properties are the scalar ones but the name, ids,
vectors, long texts and web addresses (:func:`is_fact_property`).

Example
-------
>>> from kgcore.graph.schema import GraphSchema, LabelSchema, PropertySchema
>>> movie = LabelSchema("Movie", 3, 3, {"title": PropertySchema("title", "str", 3, 3, 9.0),
...                                     "released": PropertySchema("released", "int", 3)})
>>> mapping = LabelMapping.from_schema(GraphSchema({"Movie": movie}, {}, 100))
>>> mapping.labels
(LabelSpec(label='Movie', name_property='title', facts=('released',)),)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgcore.graph.neo4j_queries import DEFAULT_MAPPING, LLAMAINDEX_MAPPING, GraphMapping
from kgcore.graph.neo4j_queries import cypher_identifier as _identifier
from kgcore.graph.schema import GraphSchema, LabelSchema, PropertySchema

__all__ = [
    "NAME_KEYS",
    "LabelMapping",
    "LabelSpec",
    "is_fact_property",
    "is_id_key",
    "mapping_for",
]

#: Property keys that name a node, in the order they are preferred.
NAME_KEYS = ("name", "title", "id")
#: A string property longer than this on average is text, not a name or a fact.
MAX_FACT_LENGTH = 120
#: The longest mean length of a name chosen for being nearly unique.
MAX_NAME_LENGTH = 80
_ID_KEY = re.compile(r"(?i)(^_?id$|_id$|[a-z]Id$|^uuid$|^elementId$|embedding|vector)")
_URL_KEY = re.compile(r"(?i)(url|uri|href|link|image|poster|thumbnail)")


@dataclass(frozen=True)
class LabelSpec:
    """One entity label: the property naming its nodes and the properties shown as facts."""

    label: str
    name_property: str
    facts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _identifier(self.label, "node label")
        _identifier(self.name_property, "property name")
        for key in self.facts:
            _identifier(key, "property name")


def is_id_key(key: str) -> bool:
    """Whether a property key names an id or a vector, never shown as a fact.

    >>> is_id_key("imdbId"), is_id_key("embedding"), is_id_key("roles")
    (True, True, False)
    """
    return _ID_KEY.search(key) is not None


def is_fact_property(prop: PropertySchema, name_property: str) -> bool:
    """Whether a sampled node property is shown as a fact by default: a scalar (or a short
    list of them) that is not the name, an id, a vector, a long text or a web address.

    >>> is_fact_property(PropertySchema("released", "int", 5), "title")
    True
    >>> is_fact_property(PropertySchema("imdbId", "str", 5, 5, 7.0), "title")
    False
    """
    if prop.key == name_property or is_id_key(prop.key) or _URL_KEY.search(prop.key):
        return False
    if prop.kind not in ("str", "int", "float", "bool", "list", "temporal"):
        return False
    return not (prop.urls or prop.mean_length > MAX_FACT_LENGTH)


def _name_property(schema: LabelSchema) -> str | None:
    props = schema.properties
    for key in NAME_KEYS:
        if key in props and props[key].kind == "str":
            return key
    unique = [
        p
        for p in props.values()
        if p.nearly_unique and p.mean_length <= MAX_NAME_LENGTH and not p.urls
        and p.filled >= 0.9 * max(schema.sampled, 1) and not is_id_key(p.key)
    ]  # fmt: skip
    return min(unique, key=lambda p: (p.mean_length, p.key)).key if unique else None


@dataclass(frozen=True)
class LabelMapping:
    """A graph of several entity labels read as facts (see the module docstring).

    Parameters
    ----------
    labels : tuple of LabelSpec
        The entity labels, in order of preference (a node with two of them counts as the first).
    relationship_types : tuple of str
        The types followed between entities; empty: every type.
    skipped : tuple of str
        Why labels were left out (for :meth:`describe`).
    """

    labels: tuple[LabelSpec, ...]
    relationship_types: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.labels:
            raise ConfigurationError(
                "the graph has no entity label (no label has a name-like property): pass "
                'names={"Label": "property"}'
            )
        seen = [spec.label for spec in self.labels]
        if len(set(seen)) != len(seen):
            raise ConfigurationError(f"a label is mapped twice: {seen}")
        for rel in self.relationship_types:
            _identifier(rel, "relationship type")

    def spec(self, label: str) -> LabelSpec:
        """The spec of an entity label."""
        for spec in self.labels:
            if spec.label == label:
                return spec
        raise KeyError(label)

    @property
    def label_names(self) -> tuple[str, ...]:
        """The entity labels, in order."""
        return tuple(spec.label for spec in self.labels)

    @classmethod
    def from_schema(
        cls,
        schema: GraphSchema,
        *,
        names: dict[str, str] | None = None,
        labels: list[str] | None = None,
        exclude_labels: list[str] | tuple[str, ...] = (),
        relationship_types: list[str] | None = None,
        facts: dict[str, list[str]] | None = None,
        exclude_facts: list[str] | tuple[str, ...] = (),
    ) -> LabelMapping:
        """Choose the mapping from a schema; every argument overrides one choice.

        ``names`` (label -> name property), ``labels`` (the entity labels, in order),
        ``exclude_labels``, ``relationship_types`` (followed; default all that join two
        entity labels), ``facts`` (label -> fact properties), ``exclude_facts`` (keys never
        shown, ``"Label.key"`` or ``"key"``).
        """
        names = dict(names or {})
        unknown = sorted(set(names) - set(schema.labels))
        if unknown:
            raise ConfigurationError(f"names= maps labels the graph lacks: {unknown}")
        chosen = labels if labels is not None else sorted(
            schema.labels, key=lambda lab: (-schema.labels[lab].count, lab))  # fmt: skip
        specs: list[LabelSpec] = []
        skipped: list[str] = []
        for label in chosen:
            if label not in schema.labels:
                raise ConfigurationError(f"labels= names {label!r}, which the graph lacks")
            if label in exclude_labels:
                continue
            ls = schema.labels[label]
            if not ls.count and label not in names:
                skipped.append(f"{label}: no nodes")
                continue
            name = names.get(label) or _name_property(ls)
            if name is None:
                odd = next((k for k in NAME_KEYS if k in ls.properties), None)
                why = (
                    f"{odd} holds {ls.properties[odd].kind} values, not names"
                    if odd
                    else "no name-like property"
                )
                skipped.append(f"{label}: {why} (pass names={{{label!r}: ...}})")
                continue
            keys = (facts or {}).get(label)
            if keys is None:
                keys = [k for k, p in sorted(ls.properties.items()) if is_fact_property(p, name)]
            keys = [
                k for k in keys if k not in exclude_facts and f"{label}.{k}" not in exclude_facts
            ]
            specs.append(LabelSpec(label, name, tuple(keys)))
        entity = {spec.label for spec in specs}
        if relationship_types is None:
            relationship_types = sorted(
                t for t, rel in schema.relationships.items()
                if any(a in entity and b in entity for a, b in rel.ends)
            )  # fmt: skip
        return cls(tuple(specs), tuple(relationship_types), tuple(skipped))

    def describe(self) -> str:
        """The mapping in a few lines (``kgqa schema``).

        >>> movie = LabelSpec("Movie", "title", ("released",))
        >>> print(LabelMapping((movie,), ("ACTED_IN",)).describe())
        Movie: named by title; facts: released
        follows: ACTED_IN
        """
        lines = [
            f"{s.label}: named by {s.name_property}; facts: {', '.join(s.facts) or '-'}"
            for s in self.labels
        ]
        lines.append(f"follows: {', '.join(self.relationship_types) or 'every type'}")
        lines += [f"left out: {why}" for why in self.skipped]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON; :meth:`from_dict` reads it back."""
        return {
            "names": {s.label: s.name_property for s in self.labels},
            "facts": {s.label: list(s.facts) for s in self.labels},
            "relationship_types": list(self.relationship_types),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LabelMapping:
        """A mapping written by hand or by :meth:`as_dict`:
        ``{"names": {"Person": "name"}, "facts": {...}, "relationship_types": [...]}``.

        >>> LabelMapping.from_dict({"names": {"Person": "name"}}).labels[0].facts
        ()
        """
        if not isinstance(data, dict) or not isinstance(data.get("names"), dict):
            raise ConfigurationError('a mapping needs "names": {"Label": "name property"}')
        facts = data.get("facts") or {}
        specs = tuple(
            LabelSpec(str(label), str(prop), tuple(facts.get(label, ())))
            for label, prop in data["names"].items()
        )
        return cls(specs, tuple(data.get("relationship_types") or ()))


def mapping_for(schema: GraphSchema, **overrides: Any) -> GraphMapping | LabelMapping:
    """The mapping to read a discovered graph with: a triple layout this package, LangChain or
    LlamaIndex writes gives its :class:`GraphMapping` (same reads as before); any other graph
    a :class:`LabelMapping` (``overrides`` as in :meth:`LabelMapping.from_schema`).
    """
    if not overrides:
        labels = schema.nonempty_labels()
        rel = schema.relationships.get(str(DEFAULT_MAPPING.relationship_type))
        if DEFAULT_MAPPING.node_label in labels and rel is not None and rel.count:
            return DEFAULT_MAPPING
        if "__Entity__" in labels:  # LlamaIndex's layout, else LangChain's
            if "__Node__" in labels:
                return LLAMAINDEX_MAPPING
            return GraphMapping("__Entity__", "id", relationship_type=None, relation_property=None)
    return LabelMapping.from_schema(schema, **overrides)
