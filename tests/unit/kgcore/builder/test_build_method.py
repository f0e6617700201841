"""``kgcore.builder.build_method`` (issue 49): any method, from a graph, optional embeddings, a
preset and flat or dotted options, folded in one place; unknown options refused by name."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import kgcore.builder.embedder as chooser
from kgcore.builder import (
    EmbeddingsOffWarning,
    build_method,
    check_options,
    method_config,
    method_names,
)
from kgcore.exceptions import ConfigurationError, InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.fasttog import FastToGConfig
from kgcore.methods.tog import ToGConfig
from tests.support.fake_embedder import FakeEmbedder
from tests.support.movie_graph import MOVIE_TRIPLES

STORE = InMemoryGraphStore.from_triples(MOVIE_TRIPLES)
GRAPHLESS = ("io", "cot", "cot-sc", "echo")


@pytest.mark.parametrize("name", [n for n in method_names() if n != "gretriever-gnn"])
def test_every_method_is_built_with_the_cost_cap(name: str) -> None:
    graph = None if name in GRAPHLESS else STORE
    embeddings = FakeEmbedder(dim=16) if name.startswith("gretriever") else None
    engine = build_method(name, graph, embeddings=embeddings, max_llm_calls=3)
    assert engine.budget.max_llm_calls == 3
    assert engine.name == name


def test_the_gnn_variant_names_what_it_needs() -> None:
    with pytest.raises(ConfigurationError, match="checkpoint"):
        build_method("gretriever-gnn", STORE, embeddings=FakeEmbedder(dim=16))


def test_flat_dotted_and_config_options_fold_into_one_config() -> None:
    engine = build_method(
        "fasttog",
        STORE,
        options={"paths.max_hops": 0, "leaves.kept": 1, "lcs.radius": 1},
        width=2,
        max_community_size=2,
    )
    config = engine.config
    assert (config.width, config.lcs.max_community_size, config.lcs.radius) == (2, 2, 1)
    assert (config.paths.enabled, config.leaves.kept) == (False, 1)
    base = ToGConfig(max_depth=1)
    assert build_method("tog", STORE, config=base, width=2).config == ToGConfig(
        max_depth=1, width=2
    )
    assert build_method("fasttog-node", STORE).config.lcs.max_community_size == 1


def test_presets_fold_first_and_options_override_them() -> None:
    engine = build_method("fasttog", STORE, preset="paper", width=2)
    assert engine.config == FastToGConfig.paper(width=2)
    assert build_method("fasttog", STORE, options={"preset": "paper"}).config.first_choice == "llm"
    assert method_config("fasttog", {"width": 2}, preset="paper") == FastToGConfig.paper(width=2)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: build_method("tog", STORE, widht=2), ConfigurationError, "'tog': widht"),
        (lambda: build_method("io", None, width=2), ConfigurationError, "'io': width"),
        (lambda: build_method("nope"), ConfigurationError, "unknown method 'nope'"),
        (lambda: build_method("tog"), ConfigurationError, "needs a knowledge graph"),
        (lambda: build_method("tog", STORE, preset="paper"), ConfigurationError, "no preset"),
        (lambda: build_method("fasttog", STORE, width=0), InvalidSettingError, "width"),
        (
            lambda: build_method("tog", STORE, options={"width": 2}, width=3),
            ConfigurationError,
            "width is given twice",
        ),
        (
            lambda: build_method("fasttog", STORE, preset="paper", config=FastToGConfig()),
            ConfigurationError,
            "preset='paper' or config, not both",
        ),
        (
            lambda: build_method("fasttog", STORE, preset="paper", options={"preset": "metaqa"}),
            ConfigurationError,
            "disagree",
        ),
        (
            lambda: build_method("tog", STORE, embeddings=FakeEmbedder()),
            ConfigurationError,
            "'tog' uses no embeddings",
        ),
        (
            lambda: build_method("fasttog", STORE, embeddings="minilm"),
            ConfigurationError,
            "got str",
        ),
        (lambda: method_config("fasttog", {"textualizer": "t2t"}), ConfigurationError, "not"),
    ],
)
def test_bad_input_is_one_clear_error(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def test_check_options_checks_values_before_anything_is_built() -> None:
    check_options("fasttog", {"paths.max_hops": 0, "textualizer": "g2t", "max_llm_calls": 2})
    with pytest.raises(InvalidSettingError, match="max_hops"):
        check_options("fasttog", {"paths.max_hops": -1})
    with pytest.raises(InvalidSettingError):
        check_options("gretriever", {"max_graph_tokens": 0})


def test_a_foreign_graph_is_adapted() -> None:
    networkx = pytest.importorskip("networkx")
    graph = networkx.MultiDiGraph()
    graph.add_edge("Cleopatra", "J. Mankiewicz", key="directed_by", relation="directed_by")
    engine = build_method("tog", InMemoryGraphStore(graph))
    assert engine.run("who directed [Cleopatra]", ScriptedLLM(["Yes {J. Mankiewicz}"])).answer


def test_fasttog_gets_the_embeddings_given_else_the_offline_one() -> None:
    from kgcore.embeddings import default_embedder

    fake = FakeEmbedder(dim=16)
    given = build_method("fasttog", STORE, embeddings=fake)
    assert given.similarity.given_embedder is fake and given.first_choice == "similarity"
    default = build_method("fasttog", STORE)  # the embeddings extra is installed here
    assert (
        default.similarity.given_embedder is default_embedder()
        and default.topic_facts.gives_topic_facts
    )
    paper = build_method("fasttog", STORE, first_choice="llm", chain_choice="llm")
    assert paper.similarity.given_embedder is None and paper.first_choice == "llm"


def test_without_the_extra_auto_asks_the_llm_and_one_warning_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chooser, "default_embedder_missing", lambda: "no sentence-transformers")
    monkeypatch.setattr(chooser, "_said", set())
    with pytest.warns(EmbeddingsOffWarning, match="topic_facts=3 gives no topic facts") as said:
        engines = [build_method("fasttog", STORE) for _ in range(3)]
    assert len(said) == 1
    assert all(e.first_choice == "llm" and not e.topic_facts.gives_topic_facts for e in engines)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the paper's choices: nothing is off, nothing said
        monkeypatch.setattr(chooser, "_said", set())
        build_method("fasttog", STORE, preset="paper")
    with pytest.raises(ConfigurationError, match="chain_choice='similarity'.*no sentence"):
        build_method("fasttog", STORE, chain_choice="similarity")
