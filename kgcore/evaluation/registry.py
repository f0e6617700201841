"""Method names the harness knows, mapped to engine factories.

Every engine has ``steps(question, topic_entities=None)`` returning a step generator whose
result is a :class:`~kgcore.methods.result.MethodResult`. A factory takes the graph store
(``None`` for the prompt-only baselines) and keyword options, such as ``width=2`` or
``max_community_size=2``. Engines are imported when first made, so the registry costs nothing.

Options are checked against what the engine accepts (its constructor's signature, or the fields
of its configuration dataclass) before the engine is made: an unknown option is a
:class:`~kgcore.exceptions.ConfigurationError` naming the accepted ones, while a ``TypeError``
raised inside a constructor is a bug and propagates unchanged. Every method also takes the
per-question cost cap, :data:`BUDGET_OPTIONS` (``max_llm_calls``, ``max_prompt_tokens``: see
:mod:`kgcore.methods.kernel.budget`), which sets the engine's ``budget``.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> engine = make_method("tog", InMemoryGraphStore.from_triples([("a", "r", "b")]), width=2)
>>> engine.width
2
>>> method_names()[:3]
['fasttog', 'fasttog-node', 'tog']
>>> sorted(method_options("cot-sc"))
['max_llm_calls', 'max_prompt_tokens', 'n', 'seed', 'temperature']
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, get_args, get_type_hints

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore

Factory = Callable[..., Any]
#: The cost-cap options every method takes (the settings of ``kgcore.methods.kernel.Budget``).
BUDGET_OPTIONS = frozenset({"max_llm_calls", "max_prompt_tokens"})
#: The option names a method accepts; called when first needed, so engines load lazily.
OptionNames = Callable[[], frozenset[str]]


def _config_classes(annotation: Any) -> list[type]:
    """The dataclasses a type hint names (``Config``, ``Config | None``, ``Optional[Config]``)."""
    if isinstance(annotation, type) and is_dataclass(annotation):
        return [annotation]
    return [a for a in get_args(annotation) if isinstance(a, type) and is_dataclass(a)]


def _hints(target: Any) -> dict[str, Any]:
    """The resolved type hints of a dataclass's fields or a callable's parameters; ``{}``
    where one names a type-checking-only import."""
    try:
        if isinstance(target, type) and is_dataclass(target):
            return get_type_hints(target)
        parameters = inspect.signature(target, eval_str=True).parameters.values()
    except Exception:  # noqa: BLE001 - hints only refine the names; without them, none nest
        return {}
    return {p.name: p.annotation for p in parameters}


def keyword_names(target: Callable[..., Any], skip: tuple[str, ...] = ()) -> frozenset[str]:
    """The keyword options ``target`` accepts, from its signature or its dataclass fields.

    A dataclass (a method's config) takes its init fields, and the fields of any config nested
    in one (flat overrides such as ``max_community_size=2``). A callable takes its named
    parameters; when it also takes ``**kwargs`` beside a ``config`` parameter typed as a
    dataclass, the config's names are accepted as overrides. ``*args`` and other ``**kwargs``
    are left out (what they take is listed by the caller), and so are the names in ``skip``.

    Example
    -------
    >>> def engine(store, width=3, *, seed=0, **extra): ...
    >>> sorted(keyword_names(engine, skip=("store",)))
    ['seed', 'width']
    """
    hints = _hints(target)
    names: set[str] = set()
    if isinstance(target, type) and is_dataclass(target):
        for f in fields(target):
            if f.init:
                names.add(f.name)
                for nested in _config_classes(hints.get(f.name)):
                    names |= keyword_names(nested)
        return frozenset(names - set(skip))
    parameters = inspect.signature(target).parameters.values()
    takes_overrides = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
    for p in parameters:
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            names.add(p.name)
            if takes_overrides:
                for config in _config_classes(hints.get(p.name)):
                    names |= keyword_names(config)
    return frozenset(names - set(skip))


@dataclass(frozen=True)
class MethodSpec:
    """A registered method: its factory, whether it reads the graph, its option names, and
    whether it calls an LLM (``kgqa eval`` loads no model for methods that do not)."""

    name: str
    factory: Factory
    needs_graph: bool
    description: str
    options: OptionNames = lambda: frozenset()
    needs_llm: bool = True


#: FastToG's nested settings, which options may set one by one as ``GROUP.NAME``.
NESTED_FASTTOG_SETTINGS = ("leaves", "paths")


def fasttog_config(options: dict[str, Any], node_level: bool = False) -> Any:
    """The :class:`~kgcore.methods.fasttog.FastToGConfig` of harness options: an opt-in
    ``preset`` first, then the settings (``leaves.NAME`` and ``paths.NAME`` ones set those
    sub-configs).

    >>> fasttog_config({"width": 2, "leaves.with_topic": False}).leaves.with_topic
    False
    >>> fasttog_config({"paths.max_hops": 0}).paths.enabled
    False
    """
    from kgcore.methods.fasttog import FastToGConfig

    options = dict(options)
    preset = options.pop("preset", None)
    base = FastToGConfig.preset(preset) if preset else FastToGConfig()
    for group in NESTED_FASTTOG_SETTINGS:
        prefix = f"{group}."
        nested = {
            k.removeprefix(prefix): options.pop(k) for k in list(options) if k.startswith(prefix)
        }
        if nested:
            options[group] = getattr(base, group).with_overrides(**nested)
    if node_level:
        options["max_community_size"] = 1
    return base.with_overrides(**options)


def _fasttog(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.fasttog import FastToG
    from kgcore.methods.fasttog.engine import offline_embedder

    textualizer = options.pop("textualizer", None)
    config = fasttog_config(options)
    # The offline embedder: the default first_choice="auto" ranks the first communities by
    # similarity (first_choice=llm: the paper's LLM choice, no embedder).
    return FastToG(store, config, textualizer, embedder=offline_embedder(config))


def _fasttog_node(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.fasttog import FastToG
    from kgcore.methods.fasttog.engine import offline_embedder

    textualizer = options.pop("textualizer", None)
    config = fasttog_config(options, node_level=True)
    return FastToG(store, config, textualizer, embedder=offline_embedder(config))


def _tog(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.tog import ToG

    return ToG(store, **options)


def _cgpe(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.cgpe import CGPE

    return CGPE(store, **options)


def _gretriever(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.gretriever.qa import GRetrieverQA

    return GRetrieverQA(store, **options)


def _gretriever_gnn(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.gretriever.gnn import GRetrieverGNNQA

    return GRetrieverGNNQA(store, **options)


def _prompt(kind: str) -> Factory:
    def make(store: GraphStore | None = None, **options: Any) -> Any:
        from kgcore.methods.baselines import PromptBaseline

        return PromptBaseline(kind, **options)

    return make


def _echo(store: GraphStore | None = None, **options: Any) -> Any:
    from kgcore.methods.baselines import EchoBaseline

    return EchoBaseline(**options)


def _fasttog_options() -> frozenset[str]:
    from kgcore.methods.fasttog.config import FastToGConfig, LeafSettings
    from kgcore.paths import PathSettings

    nested = {f"leaves.{name}" for name in LeafSettings.setting_names()}
    nested |= {f"paths.{name}" for name in PathSettings.setting_names()}
    return frozenset(FastToGConfig.setting_names()) | nested | {"textualizer", "preset"}


def _tog_options() -> frozenset[str]:
    from kgcore.methods.tog import ToG

    return keyword_names(ToG, skip=("store",))


def _cgpe_options() -> frozenset[str]:
    from kgcore.methods.cgpe import CGPE

    return keyword_names(CGPE, skip=("store",))


def _retrieval_settings() -> frozenset[str]:
    """What ``GRetrieverQA``'s ``**settings`` take: PCST and region settings."""
    from kgcore.gretriever import PCSTSettings, RegionSettings

    return keyword_names(PCSTSettings) | keyword_names(RegionSettings)


def _gretriever_options() -> frozenset[str]:
    from kgcore.methods.gretriever.qa import GRetrieverQA

    return keyword_names(GRetrieverQA, skip=("store",)) | _retrieval_settings()


def _gretriever_gnn_options() -> frozenset[str]:
    from kgcore.methods.gretriever.gnn import GRetrieverGNNQA

    return keyword_names(GRetrieverGNNQA, skip=("store",)) | _retrieval_settings()


def _cot_sc_options() -> frozenset[str]:
    from kgcore.methods.baselines import PromptBaseline

    return keyword_names(PromptBaseline, skip=("kind",))


METHODS: dict[str, MethodSpec] = {
    spec.name: spec
    for spec in (
        MethodSpec(
            "fasttog",
            _fasttog,
            True,
            "FastToG, community by community (M=4)",
            _fasttog_options,
        ),
        MethodSpec(
            "fasttog-node",
            _fasttog_node,
            True,
            "FastToG with communities of one node",
            _fasttog_options,
        ),
        MethodSpec("tog", _tog, True, "Think-on-Graph, node by node (W=3, D=3)", _tog_options),
        MethodSpec("cgpe", _cgpe, True, "Clue-Guided Path Exploration", _cgpe_options),
        MethodSpec(
            "gretriever",
            _gretriever,
            True,
            "G-Retriever subgraph retrieval + answer",
            _gretriever_options,
        ),
        MethodSpec(
            "gretriever-gnn",
            _gretriever_gnn,
            True,
            "G-Retriever GNN graph prompt + frozen LLM",
            _gretriever_gnn_options,
        ),
        MethodSpec("io", _prompt("io"), False, "IO prompting, no graph"),
        MethodSpec("cot", _prompt("cot"), False, "chain-of-thought prompting, no graph"),
        MethodSpec(
            "cot-sc",
            _prompt("cot-sc"),
            False,
            "CoT with self-consistency, no graph",
            _cot_sc_options,
        ),
        MethodSpec(
            "echo",
            _echo,
            False,
            "the question's first topic entity, no LLM call",
            needs_llm=False,
        ),
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


def method_options(name: str) -> frozenset[str]:
    """The option names method ``name`` accepts (an unknown name: :class:`ConfigurationError`),
    the cost cap's included."""
    return get_method(name).options() | BUDGET_OPTIONS


def _budget_of(options: dict[str, Any]) -> Any:
    """The checked ``Budget`` of the cost-cap options among ``options`` (``None``: none)."""
    given = {k: v for k, v in options.items() if k in BUDGET_OPTIONS}
    if not given:
        return None
    from kgcore.methods.kernel.budget import Budget

    return Budget(**given)


def _settings_classes(name: str) -> list[Any]:
    """The config classes that check method ``name``'s options (FastToG's: see
    :func:`fasttog_config`)."""
    if name == "tog":
        from kgcore.methods.tog import ToGConfig

        return [ToGConfig]
    if name == "cgpe":
        from kgcore.methods.cgpe import CGPEConfig

        return [CGPEConfig]
    if name in ("gretriever", "gretriever-gnn"):
        from kgcore.gretriever import PCSTSettings, RegionSettings

        classes: list[Any] = [PCSTSettings, RegionSettings]
        if name == "gretriever":
            from kgcore.methods.gretriever.qa import GRetrieverQAConfig

            classes.append(GRetrieverQAConfig)
        return classes
    if name == "cot-sc":
        from kgcore.methods.baselines import CoTSCConfig

        return [CoTSCConfig]
    return []


def check_options(name: str, options: dict[str, Any]) -> None:
    """Check method ``name``'s options as its configs do, without a graph or a model: an unknown
    name, a wrongly typed or out-of-range value is a :class:`ConfigurationError` before
    anything slow starts (``kgqa eval`` calls it before loading the model).

    Example
    -------
    >>> check_options("fasttog", {"width": 2.5})
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: FastToG setting width must be an integer, got 2.5
    >>> check_options("tog", {"seed": -1})
    Traceback (most recent call last):
    ...
    kgcore.exceptions.InvalidSettingError: ToG setting seed=-1 is out of range: ...
    """
    accepted = method_options(name)
    unknown = sorted(set(options) - accepted)
    if unknown:
        takes = f"it takes {', '.join(sorted(accepted))}"
        raise ConfigurationError(f"bad option for method {name!r}: {', '.join(unknown)} ({takes})")
    _budget_of(options)
    options = {k: v for k, v in options.items() if k not in BUDGET_OPTIONS}
    if name.startswith("fasttog"):
        settings = {k: v for k, v in options.items() if k != "textualizer"}
        fasttog_config(settings, node_level=name == "fasttog-node")
        return
    for settings_class in _settings_classes(name):
        known = set(settings_class.setting_names())
        settings_class(**{k: v for k, v in options.items() if k in known})


def make_method(name: str, store: GraphStore | None = None, **options: Any) -> Any:
    """An engine for ``name`` over ``store``, with options passed to its factory.

    Options the method does not accept raise a :class:`ConfigurationError` before anything is
    built; errors raised while building (a ``TypeError`` from a bug included) propagate.

    Example
    -------
    >>> make_method("io", None, width=3)
    Traceback (most recent call last):
    ...
    kgcore.exceptions.ConfigurationError: bad option for method 'io': width (it takes max_llm...)
    """
    spec = get_method(name)
    if spec.needs_graph and store is None:
        raise ConfigurationError(f"method {name!r} needs a knowledge graph")
    accepted = method_options(name)
    unknown = sorted(set(options) - accepted)
    if unknown:
        takes = f"it takes {', '.join(sorted(accepted))}"
        raise ConfigurationError(f"bad option for method {name!r}: {', '.join(unknown)} ({takes})")
    budget = _budget_of(options)
    engine = spec.factory(store, **{k: v for k, v in options.items() if k not in BUDGET_OPTIONS})
    if budget is not None:
        engine.budget = budget
    return engine
