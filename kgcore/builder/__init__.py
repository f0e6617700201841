"""One way in: every method built by :func:`build_method` from a graph, optional embeddings, a
preset and flat or dotted options.

``kgqa ask`` and ``kgqa eval``, the evaluation harness and the LangChain and LlamaIndex
adapters all build their engines here, so a method behaves the same whichever door it is
used through: its options are folded into its config in one place
(:mod:`kgcore.builder.settings`), and FastToG's ``"auto"`` choices are resolved in one place
(:mod:`kgcore.builder.embedder`). :mod:`kgcore.builder.catalogue` lists the methods.

Example
-------
>>> from kgcore.graph import InMemoryGraphStore
>>> store = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "J. Mankiewicz")])
>>> engine = build_method("fasttog", store, preset="paper", width=2)
>>> engine.config.width, engine.first_choice  # the paper: the LLM chooses
(2, 'llm')
"""

from kgcore.builder.build import build_method
from kgcore.builder.catalogue import (
    BUDGET_OPTIONS,
    METHODS,
    MethodSpec,
    get_method,
    keyword_names,
    method_names,
    method_options,
)
from kgcore.builder.embedder import EmbeddingsOffWarning, fasttog_embedder
from kgcore.builder.settings import (
    check_options,
    config_option_names,
    fasttog_config,
    method_config,
)

__all__ = [
    "BUDGET_OPTIONS",
    "METHODS",
    "EmbeddingsOffWarning",
    "MethodSpec",
    "build_method",
    "check_options",
    "config_option_names",
    "fasttog_config",
    "fasttog_embedder",
    "get_method",
    "keyword_names",
    "method_config",
    "method_names",
    "method_options",
]
