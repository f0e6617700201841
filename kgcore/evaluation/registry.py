"""Method names the harness knows, mapped to engine factories.

Every engine has ``steps(question, topic_entities=None)`` returning a step generator whose
result is a :class:`~kgcore.methods.result.MethodResult`. A factory takes the graph store
(``None`` for the prompt-only baselines) and keyword options, such as ``width=2`` or
``max_community_size=2``. Engines are imported when first made, so the registry costs nothing.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> engine = make_method("tog", InMemoryGraphStore.from_triples([("a", "r", "b")]), width=2)
>>> engine.width
2
>>> method_names()[:3]
['fasttog', 'fasttog-node', 'tog']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore

Factory = Callable[..., Any]


@dataclass(frozen=True)
class MethodSpec:
    """A registered method: its factory and whether it reads the graph."""

    name: str
    factory: Factory
    needs_graph: bool
    description: str


def _fasttog(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.fasttog import FastToG, FastToGConfig

    textualizer = options.pop("textualizer", None)
    return FastToG(store, FastToGConfig().with_overrides(**options), textualizer)


def _fasttog_node(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.fasttog import FastToG, FastToGConfig

    options.pop("max_community_size", None)
    textualizer = options.pop("textualizer", None)
    return FastToG(store, FastToGConfig.node_level(**options), textualizer)


def _tog(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.tog import ToG

    return ToG(store, **options)


def _cgpe(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.cgpe import CGPE

    return CGPE(store, **options)


def _gretriever(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.gretriever_qa import GRetrieverQA

    return GRetrieverQA(store, **options)


def _gretriever_gnn(store: GraphStore, **options: Any) -> Any:
    from kgcore.gretriever.gnn.engine import GRetrieverGNNQA

    return GRetrieverGNNQA(store, **options)


def _prompt(kind: str) -> Factory:
    def make(store: GraphStore | None = None, **options: Any) -> Any:
        from kgcore.methods.baselines import PromptBaseline

        if kind != "cot-sc" and options:
            raise TypeError(f"{kind} takes no options, got {', '.join(sorted(options))}")
        return PromptBaseline(kind, **options)

    return make


METHODS: dict[str, MethodSpec] = {
    spec.name: spec
    for spec in (
        MethodSpec("fasttog", _fasttog, True, "FastToG, community by community (M=4)"),
        MethodSpec("fasttog-node", _fasttog_node, True, "FastToG with communities of one node"),
        MethodSpec("tog", _tog, True, "Think-on-Graph, node by node (W=3, D=3)"),
        MethodSpec("cgpe", _cgpe, True, "Clue-Guided Path Exploration"),
        MethodSpec("gretriever", _gretriever, True, "G-Retriever subgraph retrieval + answer"),
        MethodSpec(
            "gretriever-gnn", _gretriever_gnn, True, "G-Retriever GNN graph prompt + frozen LLM"
        ),
        MethodSpec("io", _prompt("io"), False, "IO prompting, no graph"),
        MethodSpec("cot", _prompt("cot"), False, "chain-of-thought prompting, no graph"),
        MethodSpec("cot-sc", _prompt("cot-sc"), False, "CoT with self-consistency, no graph"),
    )
}


def method_names() -> list[str]:
    """The registered names, in registry order."""
    return list(METHODS)


def get_method(name: str) -> MethodSpec:
    """The spec of ``name``; an unknown name raises a :class:`ConfigurationError`."""
    try:
        return METHODS[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown method {name!r}; expected one of {', '.join(METHODS)}"
        ) from None


def make_method(name: str, store: GraphStore | None = None, **options: Any) -> Any:
    """An engine for ``name`` over ``store``, with options passed to its factory."""
    spec = get_method(name)
    if spec.needs_graph and store is None:
        raise ConfigurationError(f"method {name!r} needs a knowledge graph")
    try:
        return spec.factory(store, **options)
    except TypeError as err:
        raise ConfigurationError(f"bad option for method {name!r}: {err}") from err
