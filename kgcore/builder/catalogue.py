"""The methods the builder knows: each name with its engine factory, what it needs (a graph,
an LLM, embeddings) and the option names it accepts.

A factory takes the graph store (``None`` for the prompt-only baselines) and the options
:func:`kgcore.builder.build_method` has checked and folded: a configured method (FastToG, ToG,
CGPE) gets its config object as ``config``, a method that reads embeddings gets its embedder as
``embedder``. Engines are imported when first made, so the catalogue costs nothing.

Example
-------
>>> method_names()[:3]
['fasttog', 'fasttog-node', 'tog']
>>> sorted(method_options("cot-sc"))
['max_llm_calls', 'max_prompt_tokens', 'n', 'seed', 'temperature']
>>> get_method("gretriever").embeddings
'default'
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Literal, get_args, get_type_hints

from kgcore.exceptions import ConfigurationError
from kgcore.graph.store import GraphStore

Factory = Callable[..., Any]
#: The cost-cap options every method takes (the settings of ``kgcore.methods.kernel.Budget``).
BUDGET_OPTIONS = frozenset({"max_llm_calls", "max_prompt_tokens"})
#: The option names a method accepts; called when first needed, so engines load lazily.
OptionNames = Callable[[], frozenset[str]]
#: How a method reads sentence embeddings: not at all; FastToG's ``"auto"`` choices (an
#: embedder when one is given or installed, else the LLM); always (the offline one by default).
EmbeddingUse = Literal["none", "auto", "default"]


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
    """A method the builder knows.

    ``factory(store, **options)`` makes its engine; ``needs_graph`` and ``needs_llm`` say what
    it reads (``kgqa eval`` loads no model for a method that calls none); ``options`` lists
    the option names it accepts (the cost cap's aside); ``embeddings`` how it reads sentence
    embeddings (:data:`EmbeddingUse`); ``presets`` whether it takes a named preset.
    ``make_config(options, preset)`` folds a configured method's settings into its config
    object (``None``: the method takes its options as they are), beside which it takes
    ``extra_options`` (``textualizer``); ``settings_classes()`` are the settings classes that
    check the options of a method without one config.
    """

    name: str
    factory: Factory
    needs_graph: bool
    description: str
    options: OptionNames = lambda: frozenset()
    needs_llm: bool = True
    embeddings: EmbeddingUse = "none"
    presets: bool = False
    make_config: Callable[[dict[str, Any], str | None], Any] | None = None
    extra_options: tuple[str, ...] = ()
    settings_classes: Callable[[], list[Any]] = lambda: []


def _fasttog(
    store: GraphStore,
    config: Any = None,
    textualizer: Any = None,
    embedder: Any = None,
    scorer: Any = None,
) -> Any:
    from kgcore.methods.fasttog import FastToG

    return FastToG(store, config, textualizer, embedder=embedder, scorer=scorer)


def _tog(store: GraphStore, config: Any = None) -> Any:
    from kgcore.methods.tog import ToG

    return ToG(store, config)


def _cgpe(store: GraphStore, config: Any = None, type_of: Any = None) -> Any:
    from kgcore.methods.cgpe import CGPE

    return CGPE(store, config, type_of)


def _gretriever(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.gretriever.qa import GRetrieverQA

    return GRetrieverQA(store, **options)


def _gretriever_gnn(store: GraphStore, **options: Any) -> Any:
    from kgcore.methods.gretriever.gnn import gretriever_gnn

    return gretriever_gnn(store, **options)


def _prompt(kind: str) -> Factory:
    def make(store: GraphStore | None = None, **options: Any) -> Any:
        from kgcore.methods.baselines import PromptBaseline

        return PromptBaseline(kind, **options)

    return make


def _echo(store: GraphStore | None = None, **options: Any) -> Any:
    from kgcore.methods.baselines import EchoBaseline

    return EchoBaseline(**options)


#: FastToG's nested settings, which options may set one by one as ``GROUP.NAME``.
NESTED_FASTTOG_SETTINGS = ("lcs", "leaves", "paths")


def _fasttog_options() -> frozenset[str]:
    from kgcore.community.lcs import LCSConfig
    from kgcore.methods.fasttog.config import FastToGConfig, LeafSettings
    from kgcore.paths import PathSettings

    groups: dict[str, Any] = {"lcs": LCSConfig, "leaves": LeafSettings, "paths": PathSettings}
    nested = {f"{group}.{name}" for group, cls in groups.items() for name in cls.setting_names()}
    own = {"textualizer", "scorer", "preset", "config"}
    return frozenset(FastToGConfig.setting_names()) | nested | own


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

    return keyword_names(GRetrieverQA, skip=("store", "embedder")) | _retrieval_settings()


def _gretriever_gnn_options() -> frozenset[str]:
    from kgcore.methods.gretriever.gnn import GRetrieverGNNQA
    from kgcore.methods.gretriever.scorer import GRetrieverScorerQA

    engines = keyword_names(GRetrieverGNNQA, skip=("store", "embedder")) | keyword_names(
        GRetrieverScorerQA, skip=("store", "embedder")
    )
    return engines | _retrieval_settings()


def _cot_sc_options() -> frozenset[str]:
    from kgcore.methods.baselines import PromptBaseline

    return keyword_names(PromptBaseline, skip=("kind",))


def _fasttog_config(options: dict[str, Any], preset: str | None) -> Any:
    from kgcore.builder.configs import fasttog_config

    return fasttog_config(options, preset=preset)


def _fasttog_node_config(options: dict[str, Any], preset: str | None) -> Any:
    from kgcore.builder.configs import fasttog_config

    return fasttog_config(options, node_level=True, preset=preset)


def _tog_config(options: dict[str, Any], preset: str | None) -> Any:
    from kgcore.builder.configs import config_of
    from kgcore.methods.tog import ToGConfig

    return config_of(ToGConfig, options)


def _cgpe_config(options: dict[str, Any], preset: str | None) -> Any:
    from kgcore.builder.configs import config_of
    from kgcore.methods.cgpe import CGPEConfig

    return config_of(CGPEConfig, options)


def _retrieval_classes() -> list[Any]:
    from kgcore.gretriever import PCSTSettings, RegionSettings

    return [PCSTSettings, RegionSettings]


def _gretriever_classes() -> list[Any]:
    from kgcore.methods.gretriever.qa import GRetrieverQAConfig

    return [*_retrieval_classes(), GRetrieverQAConfig]


def _cot_sc_classes() -> list[Any]:
    from kgcore.methods.baselines import CoTSCConfig

    return [CoTSCConfig]


METHODS: dict[str, MethodSpec] = {
    spec.name: spec
    for spec in (
        MethodSpec(
            "fasttog",
            _fasttog,
            True,
            "FastToG, community by community (M=4)",
            _fasttog_options,
            embeddings="auto",
            presets=True,
            make_config=_fasttog_config,
            extra_options=("textualizer", "scorer"),
        ),
        MethodSpec(
            "fasttog-node",
            _fasttog,
            True,
            "FastToG with communities of one node",
            _fasttog_options,
            embeddings="auto",
            presets=True,
            make_config=_fasttog_node_config,
            extra_options=("textualizer", "scorer"),
        ),
        MethodSpec(
            "tog",
            _tog,
            True,
            "Think-on-Graph, node by node (W=3, D=3)",
            _tog_options,
            make_config=_tog_config,
        ),
        MethodSpec(
            "cgpe",
            _cgpe,
            True,
            "Clue-Guided Path Exploration",
            _cgpe_options,
            make_config=_cgpe_config,
            extra_options=("type_of",),
        ),
        MethodSpec(
            "gretriever",
            _gretriever,
            True,
            "G-Retriever subgraph retrieval + answer",
            _gretriever_options,
            embeddings="default",
            presets=True,
            settings_classes=_gretriever_classes,
        ),
        MethodSpec(
            "gretriever-gnn",
            _gretriever_gnn,
            True,
            "G-Retriever's trained GNN: graph prompt + frozen LLM, or answer-node scorer",
            _gretriever_gnn_options,
            needs_llm=False,
            embeddings="default",
            settings_classes=_retrieval_classes,
        ),
        MethodSpec("io", _prompt("io"), False, "IO prompting, no graph"),
        MethodSpec("cot", _prompt("cot"), False, "chain-of-thought prompting, no graph"),
        MethodSpec(
            "cot-sc",
            _prompt("cot-sc"),
            False,
            "CoT with self-consistency, no graph",
            _cot_sc_options,
            settings_classes=_cot_sc_classes,
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
    """The known names, in catalogue order."""
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
