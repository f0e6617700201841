"""Publishing: the dry run's folder reloads by path and, from a Hub cache, by repo id offline."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kgcore.exceptions import ConfigurationError
from kgcore.text.graph2text import Graph2Text
from kgmodels.graph2text.publish import publish
from kgqa.cli import main

TRIPLES = [("Alan_Bean", "occupation", "Test_pilot")]


def test_dry_run_writes_a_card_with_the_metadata_and_loads_by_path(tiny_model, tmp_path):
    from huggingface_hub import ModelCard

    out = tmp_path / "staged"
    code = main(["g2t", "publish", str(tiny_model), "--repo-id", "me/g2t", "--dry-run", str(out)])
    assert code == 0
    card = ModelCard.load(out / "README.md")
    assert card.data.pipeline_tag == "text2text-generation"
    assert card.data.license == "cc-by-nc-sa-4.0"
    assert card.data.datasets == ["webnlg-challenge/web_nlg"]
    assert "hallucinat" in card.text and "Triple2Text" in card.text
    assert (out / "model.safetensors").is_file() and (out / "tokenizer.json").is_file()
    direct = Graph2Text.from_pretrained(tiny_model, max_new_tokens=8)
    staged = Graph2Text.from_pretrained(out, max_new_tokens=8)
    assert staged.generate([TRIPLES]) == direct.generate([TRIPLES])


def test_staged_folder_loads_by_repo_id_from_the_hub_cache_offline(
    tiny_model, tmp_path, monkeypatch
):
    out = publish(tiny_model, "me/g2t", out=tmp_path / "staged", dry_run=True)
    cache = tmp_path / "hub"
    commit = "0" * 40
    snapshot = cache / "models--me--g2t" / "snapshots" / commit
    shutil.copytree(out, snapshot)
    (cache / "models--me--g2t" / "refs").mkdir()
    (cache / "models--me--g2t" / "refs" / "main").write_text(commit)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    g2t = Graph2Text.from_pretrained("me/g2t", max_new_tokens=8)
    assert Path(g2t.model.name_or_path).resolve() == snapshot.resolve()
    with pytest.raises(ConfigurationError, match="other/missing"):
        Graph2Text.from_pretrained("other/missing")


def test_missing_token_fails_before_anything_is_staged_or_uploaded(
    tiny_model, tmp_path, monkeypatch
):
    import huggingface_hub

    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    uploads: list[object] = []
    monkeypatch.setattr(huggingface_hub.HfApi, "upload_folder", lambda *a, **k: uploads.append(a))
    with pytest.raises(ConfigurationError, match="no Hugging Face token"):
        publish(tiny_model, "me/g2t", out=tmp_path / "staged")
    assert uploads == [] and not (tmp_path / "staged").exists()
    with pytest.raises(ConfigurationError, match="ORG/NAME"):
        publish(tiny_model, "no-slash", out=tmp_path / "x", dry_run=True)


def test_the_card_says_how_the_folder_writes_and_the_staged_folder_keeps_it(tiny_model, tmp_path):
    import json

    from huggingface_hub import ModelCard

    folder = shutil.copytree(tiny_model, tmp_path / "model")
    plain = publish(folder, "me/g2t", out=tmp_path / "plain", dry_run=True)
    assert "## Writing" not in ModelCard.load(plain / "README.md").text
    config = json.loads((folder / "g2t_config.json").read_text())
    config |= {"num_beams": 3, "candidates": 2, "triples_per_sentence": 1}
    (folder / "g2t_config.json").write_text(json.dumps(config))
    staged = publish(folder, "me/g2t", out=tmp_path / "planned", dry_run=True)
    text = ModelCard.load(staged / "README.md").text
    assert "## Writing" in text and "written 1 at a time" in text and "keeps 2 of 3" in text
    loaded = Graph2Text.from_pretrained(staged)
    assert (loaded.num_beams, loaded.candidates, loaded.triples_per_sentence) == (3, 2, 1)
