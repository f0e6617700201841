"""One settings contract for every method (issue 36): a fractional, negative, wrongly typed or
unknown setting is refused when the config is made, through the API and through the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import kgqa.common
from kgcore.community.lcs import LCSConfig
from kgcore.exceptions import ConfigurationError, InvalidSettingError
from kgcore.gretriever import PCSTSettings, RegionSettings
from kgcore.methods.baselines import CoTSCConfig
from kgcore.methods.cgpe import CGPEConfig
from kgcore.methods.fasttog import FastToGConfig
from kgcore.methods.fasttog.config import LeafSettings
from kgcore.methods.gretriever import GRetrieverQAConfig
from kgcore.methods.tog import ToGConfig
from kgcore.paths import PathSettings
from kgqa.cli import main

BAD_SETTINGS: list[tuple[type, dict[str, Any]]] = [
    (FastToGConfig, {"width": 2.5}),
    (FastToGConfig, {"width": -1}),
    (FastToGConfig, {"width": True}),
    (FastToGConfig, {"max_depth": 0}),
    (FastToGConfig, {"seed": -1}),
    (FastToGConfig, {"seed": "x"}),
    (FastToGConfig, {"radius": 1.5}),
    (FastToGConfig, {"hub_degree": -1}),
    (FastToGConfig, {"neighbors_per_hop": (20, 0)}),
    (FastToGConfig, {"prune_temperature": math.nan}),
    (FastToGConfig, {"prune_temperature": math.inf}),
    (FastToGConfig, {"seed": True}),
    (FastToGConfig, {"seed": 2**32}),
    (FastToGConfig, {"seed": 1.0}),
    (FastToGConfig, {"width": math.inf}),
    (FastToGConfig, {"hub_degree": True}),
    (FastToGConfig, {"decay": math.nan}),
    (FastToGConfig, {"max_option_triples": "8"}),
    (FastToGConfig, {"reason_temperature": -0.1}),
    (FastToGConfig, {"fallback": "guess"}),
    (FastToGConfig, {"wdth": 3}),
    (LeafSettings, {"kept": 10**6}),
    (LeafSettings, {"with_topic": "yes"}),
    (PathSettings, {"max_hops": 5}),
    (PathSettings, {"offered": 0}),
    (PathSettings, {"mode": "guess"}),
    (PathSettings, {"max_hops": 1.5}),
    (LCSConfig, {"max_community_size": -5}),
    (LCSConfig, {"algorithm": "nope"}),
    (LCSConfig, {"decay": 1.5}),
    (ToGConfig, {"width": 1.5}),
    (ToGConfig, {"seed": -1}),
    (ToGConfig, {"entity_sample_size": 30}),
    (ToGConfig, {"widht": 2}),
    (CGPEConfig, {"max_branches": 2.5}),
    (CGPEConfig, {"match_threshold": 0}),
    (CGPEConfig, {"max_dept": 1}),
    (CoTSCConfig, {"n": 2.5}),
    (CoTSCConfig, {"n": True}),
    (CoTSCConfig, {"seed": -1}),
    (CoTSCConfig, {"n": 0}),
    (CoTSCConfig, {"temperature": -1.0}),
    (PCSTSettings, {"k_nodes": 1.5}),
    (PCSTSettings, {"edge_cost": -1.0}),
    (RegionSettings, {"hops": -1}),
    (RegionSettings, {"max_nodes": 0}),
    (GRetrieverQAConfig, {"max_graph_tokens": 0}),
    (GRetrieverQAConfig, {"text_format": "html"}),
]


@pytest.mark.parametrize(
    ("config", "bad"), BAD_SETTINGS, ids=lambda v: getattr(v, "__name__", None) or str(v)
)
def test_a_bad_setting_is_refused_when_the_config_is_made(
    config: type, bad: dict[str, Any]
) -> None:
    with pytest.raises(InvalidSettingError) as info:
        config(**bad)
    assert isinstance(info.value, ConfigurationError) and isinstance(info.value, ValueError)
    assert next(iter(bad)) in str(info.value)  # the message names the setting


@pytest.mark.parametrize(
    ("method", "options"),
    [("fasttog", {"width": 2.5}), ("fasttog", {"seed": "x"}), ("tog", {"width": 1.5}),
     ("cot-sc", {"n": 2.5}), ("fasttog", {"prune_temperature": math.nan}),
     ("gretriever", {"k_nodes": True})],
)  # fmt: skip
def test_evaluate_refuses_a_bad_option_before_the_first_question(
    method: str, options: dict[str, Any], tmp_path: Path
) -> None:
    """Not after three failed questions (issue 37): no model call, no trace."""
    from kgcore.graph import InMemoryGraphStore
    from kgcore.llm import ScriptedLLM
    from kgeval import evaluate
    from kgeval.datasets import Dataset, EvalExample

    data = Dataset("toy", [EvalExample(f"q{i}", "who directed [Heat]", ("M",)) for i in range(4)])
    store = InMemoryGraphStore.from_triples([("Heat", "directed_by", "M")])
    llm = ScriptedLLM(lambda request: "{M}")
    with pytest.raises(InvalidSettingError):
        evaluate(method, data, llm, store=store, options=options, out_dir=tmp_path / "o",
                 progress=False)  # fmt: skip
    assert llm.requests == [] and not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "config",
    [FastToGConfig, LeafSettings, PathSettings, LCSConfig, ToGConfig, CGPEConfig, CoTSCConfig,
     PCSTSettings, RegionSettings, GRetrieverQAConfig],
    ids=lambda c: c.__name__,
)  # fmt: skip
def test_every_config_keeps_the_contract(config: type) -> None:
    default = config()
    assert default.with_overrides() == default  # a copy, checked again
    with pytest.raises(InvalidSettingError, match="has no setting 'nothing'"):
        default.with_overrides(nothing=1)
    with pytest.raises(InvalidSettingError, match="has no setting 'nothing'"):
        config(nothing=1)


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI must refuse before it loads any model."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a model was loaded before the settings were checked")

    monkeypatch.setattr(kgqa.common, "llm_for", refuse)


@pytest.mark.parametrize(
    ("method", "setting"),
    [
        ("fasttog", "width=2.5"),
        ("fasttog", "seed=-1"),
        ("fasttog", "leaves.kept=1000000"),
        ("fasttog", "paths.max_hops=9"),
        ("fasttog", "prune_temperature=nan"),
        ("tog", "width=1.5"),
        ("cgpe", "max_branches=-2"),
        ("cot-sc", "n=2.5"),
        ("gretriever", "k_nodes=1.5"),
        ("fasttog", "wdth=3"),
    ],
)
def test_the_cli_refuses_a_bad_setting_before_loading_a_model(
    method: str,
    setting: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_model: None,
) -> None:
    data = tmp_path / "qa.jsonl"
    data.write_text(json.dumps({"question": "who directed [Heat]", "answers": "M"}) + "\n")
    code = main(
        ["eval", "--method", method, "--set", setting, "--data", f"jsonl:{data}",
         "--out", str(tmp_path / "out"), "--quiet"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kgqa: error:") and "Traceback" not in err
    assert setting.split("=")[0].split(".")[-1] in err


@pytest.mark.parametrize(
    "option", [["--seed", "-1"], ["--width", "0"], ["--depth", "11"], ["--max-community-size", "0"]]
)
def test_kgqa_ask_refuses_a_bad_setting_before_loading_anything(
    option: list[str], capsys: pytest.CaptureFixture[str], no_model: None
) -> None:
    code = main(["ask", "who directed [Heat]", "--kg", "no-such-file.txt", "--quiet", *option])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "setting" in err and "no-such-file" not in err  # refused before the graph is read


def _docs_table() -> dict[str, str]:
    from tests.support.paths import REPO

    rows = {}
    for line in (REPO / "docs" / "fasttog.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`") and cells[0].endswith("`"):
            rows[cells[0].strip("`")] = cells[1].strip("`")
    return rows


def test_the_docs_table_lists_every_fasttog_setting_with_its_default() -> None:
    table = _docs_table()
    config = FastToGConfig()
    own = [f for f in FastToGConfig.setting_names() if f not in FastToGConfig.flat_settings]
    expected = {name: getattr(config, name) for name in own}
    expected.update({name: getattr(config.lcs, name) for name in LCSConfig.setting_names()})
    expected.update(
        {f"leaves.{n}": getattr(config.leaves, n) for n in LeafSettings.setting_names()}
    )
    expected.update({f"paths.{n}": getattr(config.paths, n) for n in PathSettings.setting_names()})
    for nested in ("lcs", "leaves", "paths"):
        expected.pop(nested)
    assert set(table) == set(expected)
    for name, value in expected.items():
        if name.endswith(("_prompt", "_system", "_demos")):
            continue  # prompts and demonstrations are named by their constants
        assert table[name] == str(value), name
