"""The default Graph2Text model (issue 50, item 3): the fine-tuned SmolLM2 where its extra and
base model are installed, the T5 otherwise with one warning naming what is missing; the name
reaches FastToG's result (the tools' descriptions and the server's start-up line: in their
packages' tests)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.gretriever.gnn import local_llm
from kgcore.llm import ScriptedLLM
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.paths import PathSettings
from kgcore.text import registry
from kgcore.text.graph2text import default
from kgcore.text.graph2text.guard import GuardedTextualizer
from kglocal.locations import G2T_MODEL_NAME, G2T_SMOLLM2_NAME
from tests.support.graph2text_default import (
    BOTH_WAYS,
    SMOLLM2,
    T5,
    fake_loading,
    simulate_runnable,
    without,
)

QUESTION = "which films share the director of [Cleopatra]"


@pytest.fixture
def runnable(monkeypatch: pytest.MonkeyPatch) -> None:
    simulate_runnable(monkeypatch)


def test_with_the_extra_and_the_base_model_the_fine_tuned_model_is_chosen(runnable: None) -> None:
    choice = default.choose_graph2text()
    assert choice.name == G2T_SMOLLM2_NAME
    assert Path(choice.where) == SMOLLM2 and choice.fallback is None


@pytest.mark.parametrize("package", ["peft", "transformers", "torch"])
def test_a_missing_package_falls_back_to_the_t5_naming_it_and_the_extra(
    runnable: None, monkeypatch: pytest.MonkeyPatch, package: str
) -> None:
    without(monkeypatch, package)
    choice = default.choose_graph2text()
    assert choice.name == G2T_MODEL_NAME and Path(choice.where) == T5
    assert choice.fallback is not None and "\n" not in choice.fallback
    assert f"{package} is not installed" in choice.fallback
    assert "pip install 'kg-retrievers[g2t]'" in choice.fallback
    assert G2T_MODEL_NAME in choice.fallback and G2T_SMOLLM2_NAME in choice.fallback


def test_without_the_base_model_the_fallback_says_how_to_install_it(
    runnable: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local_llm, "is_converted", lambda folder: False)
    monkeypatch.setattr(default, "smollm_missing", lambda: True)
    assert "kgqa models install" in str(default.choose_graph2text().fallback)
    without(monkeypatch, "gguf")  # the GGUF cannot even be read
    assert "gguf is not installed" in str(default.choose_graph2text().fallback)


def test_without_the_adapter_folder_the_fallback_names_where_it_looked(
    runnable: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from kglocal import locations

    wheel = tmp_path / "wheel"  # as in a wheel: no checkout, no user models
    monkeypatch.setattr(locations, "project_models_dir", lambda: None)
    monkeypatch.setenv("KGQA_MODELS_DIR", str(tmp_path / "none"))
    monkeypatch.setattr(locations, "packaged_graph2text_dir", lambda: wheel / G2T_MODEL_NAME)
    with pytest.raises(ConfigurationError, match=G2T_MODEL_NAME):  # neither model anywhere
        default.choose_graph2text()
    (wheel / G2T_MODEL_NAME).mkdir(parents=True)
    (wheel / G2T_MODEL_NAME / "config.json").write_text("{}")
    choice = default.choose_graph2text()
    assert choice.name == G2T_MODEL_NAME and Path(choice.where) == wheel / G2T_MODEL_NAME
    assert str(wheel / G2T_SMOLLM2_NAME) in str(choice.fallback)  # where it looked


def test_the_environment_variable_still_names_the_model(
    runnable: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KG_G2T_MODEL", str(T5))
    choice = default.choose_graph2text()
    assert (choice.name, choice.where, choice.fallback) == (str(T5), str(T5), None)


def test_the_fallback_is_one_warning_line_when_the_model_loads(
    runnable: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    loaded = fake_loading(monkeypatch)
    with caplog.at_level(logging.WARNING, logger=default.logger.name):
        assert default.default_graph2text().name == G2T_SMOLLM2_NAME
    assert caplog.records == [] and loaded == [G2T_SMOLLM2_NAME]
    without(monkeypatch, "peft")
    with caplog.at_level(logging.WARNING, logger=default.logger.name):
        model, name = default.default_graph2text()
    assert name == G2T_MODEL_NAME and loaded[-1] == G2T_MODEL_NAME
    (record,) = caplog.records
    assert "peft is not installed" in record.getMessage() and "[g2t]" in record.getMessage()


def test_a_chosen_model_that_fails_to_load_falls_back_with_the_reason(
    runnable: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    loaded = fake_loading(monkeypatch, fail_on=G2T_SMOLLM2_NAME)
    with caplog.at_level(logging.WARNING, logger=default.logger.name):
        assert default.default_graph2text().name == G2T_MODEL_NAME
    assert loaded == [G2T_MODEL_NAME]
    assert "failed to load" in caplog.text and "cache is broken" in caplog.text


@pytest.mark.parametrize(("missing", "expected"), BOTH_WAYS)
def test_fasttog_g2t_records_the_model_that_wrote(
    runnable: None,
    monkeypatch: pytest.MonkeyPatch,
    movie_store: Any,
    missing: tuple[str, ...],
    expected: str,
) -> None:
    without(monkeypatch, *missing)
    fake_loading(monkeypatch)
    monkeypatch.setattr(registry, "_cache", {})
    engine = FastToG(movie_store, FastToGConfig(paths=PathSettings(max_hops=0)), "g2t")
    assert isinstance(engine.textualizer, GuardedTextualizer)
    assert engine.textualizer.model_name == expected
    llm = ScriptedLLM.by_purpose(
        repeat_last=True, replies=dict(prune=["{1}"], reason=["{All About Eve}"])
    )
    result = engine.run(QUESTION, llm)
    assert result.extra["textualizer_model"] == expected
    plain = FastToG(movie_store, FastToGConfig(paths=PathSettings(max_hops=0)))
    assert "textualizer_model" not in plain.run(QUESTION, llm).extra  # Triple2Text: no model


def test_a_named_model_is_recorded_as_named(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_loading(monkeypatch)
    monkeypatch.setattr(registry, "_cache", {})
    textualizer = registry.resolve_textualizer(f"g2t:{T5}")
    assert textualizer.model_name == str(T5)  # type: ignore[attr-defined]
