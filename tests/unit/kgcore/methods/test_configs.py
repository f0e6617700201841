"""The typed method configs: ToGConfig, CGPEConfig and FastToGConfig (nesting LCSConfig)."""

from __future__ import annotations

import pytest

from kgcore.community.lcs import LCSConfig
from kgcore.exceptions import ConfigurationError, InvalidSettingError
from kgcore.graph import InMemoryGraphStore
from kgcore.llm import ScriptedLLM
from kgcore.methods.cgpe import CGPE, CGPEConfig
from kgcore.methods.fasttog import FastToG, FastToGConfig
from kgcore.methods.tog import ToG, ToGConfig
from kgeval.registry import make_method

STORE = InMemoryGraphStore.from_triples(
    [("Cleopatra", "directed_by", "Joseph L. Mankiewicz"), ("Cleopatra", "release_year", "1963")]
)
ONE = InMemoryGraphStore.from_triples([("Cleopatra", "directed_by", "Joseph L. Mankiewicz")])


@pytest.mark.parametrize(
    "make",
    [
        lambda: ToGConfig(width=0),
        lambda: ToGConfig(max_depth=9),
        lambda: ToGConfig(entity_sample_size=6, entity_sample_threshold=5),
        lambda: ToGConfig(reason_prompt="Triplets: {facts}"),
        lambda: CGPEConfig(max_branches=0),
        lambda: CGPEConfig(match_threshold=0),
        lambda: CGPEConfig(match_threshold="high"),
        lambda: CGPEConfig(step2_prompt="pick {A, C}"),
        lambda: FastToGConfig(radius=9),
        lambda: FastToGConfig(algorithm="kmeans"),
        lambda: FastToGConfig(fallback="guess"),
        lambda: FastToGConfig(reason_prompt="{question} {unknown_field}"),
    ],
)
def test_bad_settings_are_configuration_errors(make: object) -> None:
    with pytest.raises(InvalidSettingError) as caught:
        make()  # type: ignore[operator]
    assert isinstance(caught.value, ConfigurationError)
    assert isinstance(caught.value, ValueError)


def test_tog_takes_a_config_and_keyword_overrides() -> None:
    engine = ToG(STORE, ToGConfig(width=2, seed=4), max_depth=1)
    assert (engine.width, engine.max_depth, engine.config.seed) == (2, 1, 4)
    with pytest.raises(InvalidSettingError, match="no setting 'widht'"):
        ToG(STORE, widht=2)
    with pytest.raises(InvalidSettingError, match="config must be a ToGConfig, got int"):
        ToG(STORE, 2)  # type: ignore[arg-type]
    with pytest.raises(InvalidSettingError, match="config must be a CGPEConfig, got dict"):
        CGPE(STORE, {"max_depth": 2})  # type: ignore[arg-type]


def test_a_tog_prompt_template_reaches_the_model() -> None:
    config = ToGConfig(reason_prompt="FACTS\n{triples}\nQ: {question} -> {{answer}}")
    llm = ScriptedLLM(["{Joseph L. Mankiewicz}"])
    result = ToG(ONE, config).run("who directed [Cleopatra]", llm)
    prompts = [r.messages[-1].content for r in llm.requests if r.purpose == "tog_reason"]
    assert prompts and prompts[0].startswith("FACTS\n(Cleopatra, directed by, Joseph")
    assert prompts[0].endswith("Q: who directed [Cleopatra] -> {answer}")
    assert result.answer == "Joseph L. Mankiewicz"


def test_the_default_tog_prompt_is_unchanged() -> None:
    llm = ScriptedLLM(["{Joseph L. Mankiewicz}"])
    ToG(ONE).run("who directed [Cleopatra]", llm)
    assert llm.requests[-1].messages[-1].content == (
        "Knowledge triplets:\n(Cleopatra, directed by, Joseph L. Mankiewicz)\n"
        "Question: who directed [Cleopatra]\nReply with the answer names from the triplets "
        "in braces. If the triplets lack them, reply {Unknown}."
    )


def test_cgpe_takes_a_config_overrides_and_its_prompts() -> None:
    config = CGPEConfig(clue_prompt="CLUES OF {question}", max_branches=2)
    engine = CGPE(STORE, config, max_depth=1)
    assert (engine.max_depth, engine.max_branches) == (1, 2)
    llm = ScriptedLLM(['["Cleopatra"]', "{1963}"])
    engine.run("when was Cleopatra released", llm)
    assert llm.requests[0].messages[-1].content == "CLUES OF when was Cleopatra released"
    with pytest.raises(InvalidSettingError, match="no setting"):
        CGPE(STORE, max_dept=1)


def test_fasttog_config_nests_the_community_search_settings() -> None:
    flat = FastToGConfig(width=2, max_community_size=2, radius=1, hub_degree=None)
    nested = FastToGConfig(width=2, lcs=LCSConfig(max_community_size=2, radius=1, hub_degree=None))
    assert flat == nested
    assert flat.lcs == LCSConfig(max_community_size=2, radius=1, hub_degree=None)
    assert not hasattr(flat, "radius")  # given flat, read on lcs: one place for each setting
    changed = flat.with_overrides(radius=2, width=3)
    assert (changed.lcs.radius, changed.lcs.max_community_size, changed.width) == (2, 2, 3)
    assert FastToGConfig.node_level(radius=1).lcs == LCSConfig(max_community_size=1, radius=1)
    with pytest.raises(InvalidSettingError, match="FastToG has no setting 'radiuss'"):
        FastToGConfig(radiuss=1)
    with pytest.raises(InvalidSettingError, match="width must be an integer, got None"):
        flat.with_overrides(width=None)  # None is a value like any other: refused here


def test_registry_options_reach_the_typed_configs() -> None:
    fasttog = make_method("fasttog", STORE, radius=1, width=2)
    assert (fasttog.config.lcs.radius, fasttog.config.width, fasttog.name) == (1, 2, "fasttog")
    node = make_method("fasttog-node", STORE, radius=1)
    assert (node.config.lcs.max_community_size, node.name) == (1, "fasttog-node")
    assert make_method("tog", STORE, width=2).config.width == 2
    assert make_method("cgpe", STORE, max_branches=2).config.max_branches == 2
    with pytest.raises(ConfigurationError):
        make_method("tog", STORE, widht=2)


def test_fasttog_node_level_reports_its_name() -> None:
    llm = ScriptedLLM(["{Joseph L. Mankiewicz}"] * 3)
    result = make_method("fasttog-node", STORE).run("who directed [Cleopatra]", llm)
    assert result.method == "fasttog-node"
    assert FastToG(STORE).run("who directed [Cleopatra]", llm).method == "fasttog"
