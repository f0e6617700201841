"""The shipped Graph2Text models' Hub ids (issue 50, item 3): ``kgqa g2t publish`` and
``Graph2Text.from_pretrained`` agree on one id per model (``kglocal.locations.g2t_hub_id``),
the model cards show it, and offline both the folder path and the Hub id load the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.text.graph2text.model import Graph2Text, resolve_model_folder
from kglocal.locations import (
    G2T_HUB_IDS,
    G2T_HUB_ORG,
    G2T_MODEL_NAME,
    G2T_SMOLLM2_NAME,
    g2t_hub_id,
)
from kgmodels.graph2text.publish import default_repo_id
from kgqa.cli import main
from tests.support.paths import REPO

SHIPPED = (G2T_MODEL_NAME, G2T_SMOLLM2_NAME)
TRIPLES = [("Alan_Bean", "occupation", "Test_pilot")]


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``HF_HUB_OFFLINE=1`` with an empty Hub cache (nothing of ours in it)."""
    import huggingface_hub.constants as constants

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    return cache


@pytest.mark.parametrize("name", SHIPPED)
def test_publish_and_from_pretrained_share_one_hub_id_per_shipped_model(name: str) -> None:
    repo_id = g2t_hub_id(name)
    assert repo_id == f"{G2T_HUB_ORG}/{name}" and G2T_HUB_IDS[repo_id] == name
    assert default_repo_id(REPO / "models" / name) == repo_id
    card = (REPO / "models" / name / "README.md").read_text()
    assert f'Graph2Text.from_pretrained("{repo_id}")' in card  # the card's "Use" snippet


def test_another_folder_needs_a_repo_id(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="--repo-id"):
        default_repo_id(tmp_path)


def test_publish_without_repo_id_stages_the_card_under_the_shared_id(tmp_path: Path) -> None:
    from huggingface_hub import ModelCard

    out = tmp_path / "staged"
    folder = REPO / "models" / G2T_SMOLLM2_NAME
    assert main(["g2t", "publish", str(folder), "--dry-run", str(out), "--metrics", "x"]) == 0
    repo_id = g2t_hub_id(G2T_SMOLLM2_NAME)
    assert f'Graph2Text.from_pretrained("{repo_id}")' in ModelCard.load(out / "README.md").text
    assert (out / "adapter_model.safetensors").is_file()


@pytest.mark.parametrize("name", SHIPPED)
def test_offline_the_hub_id_resolves_to_the_shipped_folder(offline: Path, name: str) -> None:
    assert resolve_model_folder(g2t_hub_id(name)) == REPO / "models" / name


def test_offline_another_id_not_in_the_cache_is_a_clear_error(offline: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot load Graph2Text model 'org/absent'"):
        resolve_model_folder("org/absent")


def test_offline_a_shipped_id_without_its_folder_names_both_problems(
    offline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kglocal import locations

    monkeypatch.setattr(locations, "project_models_dir", lambda: None)
    monkeypatch.setenv("KGQA_MODELS_DIR", str(tmp_path / "none"))
    monkeypatch.setattr(locations, "packaged_graph2text_dir", lambda: tmp_path / "x" / "y")
    with pytest.raises(ConfigurationError) as err:
        resolve_model_folder(g2t_hub_id(G2T_SMOLLM2_NAME))
    message = str(err.value)
    assert "from the Hub or its cache" in message and "not found (looked in:" in message


def test_offline_the_t5_loads_by_folder_path_and_by_hub_id(offline: Path) -> None:
    pytest.importorskip("transformers")
    by_path = Graph2Text.from_pretrained(REPO / "models" / G2T_MODEL_NAME, max_new_tokens=12)
    by_id = Graph2Text.from_pretrained(g2t_hub_id(G2T_MODEL_NAME), max_new_tokens=12)
    assert by_path.generate([TRIPLES]) == by_id.generate([TRIPLES])
